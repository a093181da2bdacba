import Media
import SIPTransport

/// A bound RTP/RTCP port pair and the stream it carries now, if any. The media loop watches its sockets
/// once, for as long as the pair is open, and hands what arrives to the stream that holds the pair, or drops
/// it while the pair rests in the engine's pool: a stream that takes a pooled pair, and the pool that takes
/// it back, change where datagrams go without going through the loop's descriptor table (two watches, each
/// a closure and a table update, per open and again per close).
///
/// Confined to the media loop once a stream opened on it (the signalling loop only binds it and hands it
/// over): its state goes without run-time exclusivity checks, as the stream's does.
final class MediaPair {
    let rtp: DatagramSocket
    let rtcp: DatagramSocket
    /// The stream whose datagrams these are (media loop); `nil` while the pair rests in the pool.
    @exclusivity(unchecked) weak var stream: MediaStream?
    /// Whether the media loop watches the sockets (media loop). A pair belongs to one engine, so to one loop.
    @exclusivity(unchecked) private var isWatched = false

    init(_ sockets: (rtp: DatagramSocket, rtcp: DatagramSocket)) {
        rtp = sockets.rtp
        rtcp = sockets.rtcp
    }

    /// Sends what arrives from now on to `stream`; the first time, starts watching the sockets on `loop`.
    /// A pair back from the pool first drops what waits on it: the loop has not offered it yet, and it is
    /// the ended call's (a late packet, or a stale peer's that would latch the new stream to itself).
    /// - Throws: `TransportError` when the loop cannot watch a socket (the stream then receives nothing).
    func carry(_ stream: MediaStream, on loop: any EventLoopProtocol) throws(TransportError) {
        if isWatched {
            dropPending()
        } else {
            try rtp.watch(on: loop) { [weak self] in self?.readable(.rtp) }
            try rtcp.watch(on: loop) { [weak self] in self?.readable(.rtcp) }
            isWatched = true
        }
        self.stream = stream
    }

    /// Reads and drops what waits on both sockets.
    func dropPending() {
        withUnsafeTemporaryAllocation(byteCount: MediaStream.receiveCapacity, alignment: 1) { buffer in
            rtp.discardPending(into: buffer)
            rtcp.discardPending(into: buffer)
        }
    }

    /// Datagrams wait on one socket: the stream reads them, or they are dropped (late packets of an ended
    /// call, stray ones) so that a resting pair does not keep the loop awake.
    private func readable(_ port: MediaPort) {
        if let stream {
            stream.read(from: port)
            return
        }
        let socket = port == .rtp ? rtp : rtcp
        withUnsafeTemporaryAllocation(byteCount: MediaStream.receiveCapacity, alignment: 1) { buffer in
            socket.discardPending(into: buffer)
        }
    }

    /// Closes both sockets (they stop being watched); later calls do nothing.
    func close() {
        stream = nil
        rtp.close()
        rtcp.close()
    }
}
