import SDP

/// The codec, RTP, SRTP, RTCP and DTMF state of a ``MediaSession`` for one negotiated session.
///
/// Not `Sendable`: the Opus coder and the SRTP contexts are classes bound to the media loop.
@usableFromInline
struct NegotiatedStream {
    var kind: AudioCodecKind
    /// The coders and the RTCP session, out of line (see ``Machinery``).
    let machinery: Machinery
    var encoder: any AudioEncoder {
        get { machinery.encoder }
        nonmutating _modify { yield &machinery.encoder }
    }
    var decoder: any AudioDecoder {
        get { machinery.decoder }
        nonmutating _modify { yield &machinery.decoder }
    }
    var rtcp: RTCPSession {
        get { machinery.rtcp }
        nonmutating set { machinery.rtcp = newValue }
    }
    var sender: RTPSender
    /// The receive side, made with the first packet (``MediaSession/reception(of:)``); `nil` before.
    var reception: StreamReception?
    var receivePayloadType: UInt8
    /// The telephone-event payload types (RFC 4733) to send with and to receive, when negotiated.
    var telephoneEvent: (send: UInt8, receive: UInt8)?
    /// The RFC 4733 digits going out: made with the first digits and let go once they are sent (most calls
    /// send none, and the sender is 72 bytes).
    var tones: ToneSending?
    var outbound: SRTPContext?
    var inbound: SRTPContext?
    /// The negotiated direction allows sending and the peer gave an address.
    var sends: Bool
    /// The negotiated direction allows receiving (or a re-offer asked to receive ahead of the answer).
    var receives: Bool
    var isRTCPMuxed: Bool
    /// The session this state was built for, to tell a re-negotiation that changes nothing of the media.
    var negotiated: NegotiatedSession

    /// Our Opus encoder runs DTX (the peer's `usedtx=1`, RFC 7587 §6.1): its frames of two bytes or less
    /// carry no audio and are not sent.
    var isDTX = false
    /// We asked the peer for DTX (our `usedtx=1`): in its silences only RTCP may come, and that keeps the
    /// media timeout quiet.
    var isReceivingDTX = false

    /// The stream's existentials (the coders, and the clock and randomness inside the RTCP session), out of line
    /// and shared by copies of the stream: inline they would make the stream, and the session state that holds
    /// it, a value of unknown layout, copied through value witnesses each time the state is read.
    ///
    /// Its state goes without run-time exclusivity checks (`@exclusivity(unchecked)`): the session is not
    /// `Sendable`, and none of its accesses overlap (each is a read, or a write of a value made first).
    final class Machinery {
        @exclusivity(unchecked) var encoder: any AudioEncoder
        @exclusivity(unchecked) var decoder: any AudioDecoder
        @exclusivity(unchecked) var rtcp: RTCPSession

        init(encoder: any AudioEncoder, decoder: any AudioDecoder, rtcp: RTCPSession) {
            self.encoder = encoder
            self.decoder = decoder
            self.rtcp = rtcp
        }
    }

    /// A telephone-event sender out of line. Shared by copies of the stream, like the coders.
    final class ToneSending {
        var sender: TelephoneEventSender
        init(_ sender: TelephoneEventSender) { self.sender = sender }
    }

    /// Whether Opus format parameters ask for DTX (`usedtx=1`).
    static func asksForDTX(_ kind: AudioCodecKind, _ formatParameters: String?) -> Bool {
        guard kind == .opus else { return false }
        var opus = OpusConfiguration()
        opus.applyRemoteFormatParameters(formatParameters)
        return opus.isDTXEnabled
    }

    /// False while a DTLS-SRTP session waits for its keys: nothing goes out and nothing is taken in.
    var isKeyed: Bool { negotiated.dtls == nil || (outbound != nil && inbound != nil) }

    /// Runs `body` on our RTP receiver (for RTCP reports): the reception's, or, before any packet, a new
    /// one that has had nothing.
    func withReceiver<Result>(_ body: (inout RTPReceiver) -> Result) -> Result {
        if let reception { return body(&reception.receiver) }
        var fresh = RTPReceiver(clockRate: negotiated.codec.clockRate)
        return body(&fresh)
    }

    /// RTP clock ticks per 20 ms packet.
    var samplesPerPacket: UInt32 { encoder.timestampIncrement }

    /// Whether `session` keeps the media as it is: the same codec, keys, address, events and muxing (then
    /// only the direction may change).
    func hasSameMedia(as session: NegotiatedSession) -> Bool {
        negotiated.codec == session.codec && negotiated.srtp == session.srtp && negotiated.dtls == session.dtls
            && negotiated.remoteRTPAddress == session.remoteRTPAddress
            && negotiated.telephoneEvent == session.telephoneEvent && negotiated.isRTCPMuxed == session.isRTCPMuxed
    }

    /// Protects an RTP packet for sending; `nil` when it cannot be serialised or protected.
    func protect(_ packet: RTPPacket) -> [UInt8]? {
        guard isKeyed, var bytes = try? packet.serialized(reservingCapacity: SRTPContext.maximumTrailerLength)
        else {
            return nil
        }
        if let outbound { guard (try? outbound.protect(&bytes)) != nil else { return nil } }
        return bytes
    }

    /// Protects an RTCP compound packet for sending; `nil` when it cannot be protected.
    func protectRTCP(_ compound: [UInt8]) -> [UInt8]? {
        guard isKeyed else { return nil }
        var bytes = compound
        if let outbound { guard (try? outbound.protectRTCP(&bytes)) != nil else { return nil } }
        return bytes
    }
}
