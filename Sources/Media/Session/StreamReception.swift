/// The receive side of a ``NegotiatedStream``: RTP statistics (RFC 3550 A.1), the jitter buffer and the
/// telephone-event receiver (RFC 4733).
///
/// Made with the first packet that reaches the stream, so a stream that receives nothing (on hold,
/// send-only, a peer that never sends) keeps none of it. A class, shared by copies of its stream like the
/// codec and SRTP state: a session keeps one stream value and changes it in place.
final class StreamReception {
    var receiver: RTPReceiver
    var jitter: JitterBuffer
    var toneReceiver = TelephoneEventReceiver()

    init(receiver: RTPReceiver, jitter: JitterBuffer) {
        self.receiver = receiver
        self.jitter = jitter
    }
}
