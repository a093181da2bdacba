import Foundation
import SIPTransport

/// The media side of a provider: one event loop of its own (so a busy signalling loop or a slow delegate
/// never delays RTP) and the RTP port pairs its streams hold.
package final class MediaEngine: @unchecked Sendable {
    // @unchecked Sendable: `nextPair`, `pending` and `isFlushScheduled` are touched only on the signalling
    // loop (the one caller of `open` and `perform`); everything else is the media loop, which is itself
    // thread-safe for posting work.

    package let loop: EventLoop
    private let signalling: EventLoop
    private var nextPair = 0
    /// Work for the media loop posted during this signalling-loop iteration, handed over at its end.
    private var pending: [@Sendable () -> Void] = []
    private var isFlushScheduled = false

    /// A media loop fed from `signalling` (whose thread calls `open` and `perform`).
    package init(signalling: EventLoop) throws(TransportError) {
        self.signalling = signalling
        loop = try EventLoop(name: "media")
        loop.start()
    }

    /// Binds an RTP/RTCP port pair on `host` in `ports` and starts a stream on the media loop
    /// (signalling loop only).
    /// - Throws: `TransportError` when no pair is free.
    func open(
        host: String, ports: ClosedRange<UInt16>, audio: CallAudio, mediaTimeout: Duration?,
        events: MediaStreamEvents
    ) throws(TransportError) -> MediaStream {
        let sockets = try DatagramSocket.bindPair(host: host, ports: ports, start: nextPair)
        nextPair = (nextPair &+ 1) & 0x7FFF_FFFF
        let stream = MediaStream(loop: loop, sockets: sockets, audio: audio, mediaTimeout: mediaTimeout, events: events)
        perform { stream.open() }
        return stream
    }

    /// Runs `body` on the media loop, in order with the other work posted from the signalling loop
    /// (signalling loop only). The work of one signalling iteration (a batch of calls opening, answering
    /// and closing) goes over in one post: one wake-up of the media thread instead of one per step.
    func perform(_ body: @escaping @Sendable () -> Void) {
        pending.append(body)
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        signalling.atIterationEnd { [self] in flush() }
    }

    private func flush() {
        isFlushScheduled = false
        guard !pending.isEmpty else { return }
        let work = pending
        pending = []
        loop.execute {
            for body in work { body() }
        }
    }

    /// Stops the media loop (after the streams were closed).
    package func shutdown() {
        loop.stop()
    }
}
