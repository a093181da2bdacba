import SIPTransport
import STUN

/// One TCP connection from a client to a ``VirtualTURNServer``: STUN messages and ChannelData framed over the
/// stream (RFC 8656 §12.5), and a queue of what is waiting to be written.
final class TURNServerConnection {
    let remote: SocketAddress
    private let channel: any StreamChannel
    private var framer = TURNStreamFramer()
    private var pending: [UInt8] = []
    private var isClosed = false
    /// The most bytes waiting to be written; past it the connection is closed, as a stuck peer would be.
    static let pendingLimit = 1 << 20

    init(channel: any StreamChannel, remote: SocketAddress) {
        self.channel = channel
        self.remote = remote
    }

    /// Starts reading: each whole frame goes to `onFrame`; the end of the stream, an error or a framing fault
    /// to `onClose`, once.
    func start(
        on loop: any EventLoopProtocol, onFrame: @escaping (TURNStreamFrame) -> Void, onClose: @escaping () -> Void
    ) {
        do {
            try channel.watch(on: loop, writes: false) { [weak self] readiness in
                self?.ready(readiness, onFrame: onFrame, onClose: onClose)
            }
        } catch {
            close()
            onClose()
        }
    }

    private func ready(
        _ readiness: StreamReadiness, onFrame: (TURNStreamFrame) -> Void, onClose: () -> Void
    ) {
        if readiness.contains(.writable) { flush() }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !isClosed {
            switch buffer.withUnsafeMutableBytes({ channel.read(into: $0) }) {
            case .bytes(let count):
                do throws(TURNFramingError) {
                    try framer.append(buffer[0..<count])
                    while let frame = try framer.nextFrame() { onFrame(frame) }
                } catch {
                    close()
                    onClose()
                }
            case .end, .failed:
                close()
                onClose()
            case .wouldBlock:
                return
            }
        }
    }

    /// Writes `bytes` after what is already waiting.
    func send(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        pending.append(contentsOf: bytes)
        guard pending.count <= Self.pendingLimit else { return close() }
        flush()
    }

    private func flush() {
        guard !isClosed, !pending.isEmpty else { return }
        let written: Int
        do {
            written = try pending.withUnsafeBytes { raw throws(TransportError) in try channel.write(raw) }
        } catch {
            return close()
        }
        pending.removeFirst(written)
        channel.setWriteInterest(!pending.isEmpty)
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        pending.removeAll()
        channel.close()
    }
}
