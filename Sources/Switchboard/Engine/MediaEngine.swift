import Foundation
import SIPTransport

/// The media side of a provider: one event loop of its own (so a busy signalling loop or a slow delegate
/// never delays RTP) and the RTP port pairs its streams hold.
package final class MediaEngine: @unchecked Sendable {
    // @unchecked Sendable: `nextPair` is touched only on the signalling loop (the one caller of `open`);
    // everything else is the media loop, which is itself thread-safe for posting work.

    package let loop: EventLoop
    private var nextPair = 0

    package init() throws(TransportError) {
        loop = try EventLoop(name: "media")
        loop.start()
    }

    /// Binds an RTP/RTCP port pair on `host` in `ports` and starts a stream on the media loop.
    /// - Throws: `TransportError` when no pair is free.
    func open(
        host: String, ports: ClosedRange<UInt16>, audio: CallAudio, mediaTimeout: Duration?,
        events: MediaStreamEvents
    ) throws(TransportError) -> MediaStream {
        let sockets = try DatagramSocket.bindPair(host: host, ports: ports, start: nextPair)
        nextPair = (nextPair &+ 1) & 0x7FFF_FFFF
        let stream = MediaStream(loop: loop, sockets: sockets, audio: audio, mediaTimeout: mediaTimeout, events: events)
        loop.execute { stream.open() }
        return stream
    }

    /// Stops the media loop (after the streams were closed).
    package func shutdown() {
        loop.stop()
    }
}
