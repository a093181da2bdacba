import SIPTransport

/// The TCP or TLS connection a TURN allocation talks to its server over (RFC 8656 §3.1), on the media loop:
/// bytes in and out of a `StreamChannel` of the `NetworkStack`, through the project's `TLSSession` (certificate
/// and host-name checks as SIP's TLS) for `turns:`. Framing is the TURN client's. Loop-confined.
final class TURNStreamLink {
    private let channel: any StreamChannel
    private let tls: TLSSession?
    private var isConnected = false
    private var isReady = false
    private var isClosed = false
    /// Bytes for the socket (ciphertext over TLS), from `sent` on.
    private var outbox: [UInt8] = []
    private var sent = 0
    /// Plaintext given before the connection (and the TLS handshake) was ready.
    private var early: [UInt8] = []
    private var watchesWrites = true
    /// The most bytes held for the socket before the link gives up (a stalled server).
    static let outboxLimit = 256 * 1024

    /// Plaintext from the server.
    var onBytes: ([UInt8]) -> Void = { _ in }
    /// Connected (and the TLS handshake done): what was sent early is on its way.
    var onReady: () -> Void = {}
    /// The connection failed or closed; nothing more comes.
    var onClosed: (TransportError?) -> Void = { _ in }

    /// Connects to `server` (TLS when `tls` is given, checking the certificate for `serverName`).
    init(
        network: any NetworkStack, loop: any EventLoopProtocol, server: SocketAddress, tls context: TLSContext?,
        serverName: String
    ) throws(TransportError) {
        channel = try network.connectStream(to: server)
        tls = try context.map { context throws(TransportError) in
            try TLSSession(context: context, serverName: serverName, address: server)
        }
        try channel.watch(on: loop, writes: true) { [weak self] ready in self?.ready(ready) }
    }

    /// Sends `bytes` (queued until the link is ready).
    func send(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        guard isReady else {
            early.append(contentsOf: bytes)
            return
        }
        write(bytes)
    }

    /// Closes the connection; nothing more is reported.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        channel.close()
    }

    private func ready(_ ready: StreamReadiness) {
        guard !isClosed else { return }
        if !isConnected {
            guard !ready.isDisjoint(with: [.writable, .hangUp]) else { return }
            if let failure = channel.connectError() { return fail(failure) }
            isConnected = true
            if let tls {
                step { () throws(TransportError) in _ = try tls.handshake() }
            } else {
                becomeReady()
            }
        }
        if ready.contains(.writable) { flush() }
        if !ready.isDisjoint(with: [.readable, .hangUp]) { read() }
    }

    private func read() {
        var plaintext: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var ended = false
        reading: for _ in 0..<16 {
            switch buffer.withUnsafeMutableBytes({ channel.read(into: $0) }) {
            case .bytes(let count):
                if let tls {
                    buffer.withUnsafeBytes { tls.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                } else {
                    plaintext.append(contentsOf: buffer[0..<count])
                }
                if count < buffer.count { break reading }
            case .end:
                ended = true
                break reading
            case .failed(let error): return fail(error)
            case .wouldBlock: break reading
            }
        }
        if let tls {
            step { () throws(TransportError) in
                if !tls.isHandshakeComplete, try tls.handshake() { becomeReady() }
                if tls.isHandshakeComplete { try tls.readPlaintext(into: &plaintext) }
            }
        }
        if !plaintext.isEmpty, !isClosed { onBytes(plaintext) }
        if ended { fail(TransportError(.connectionClosed, "the TURN server closed the connection")) }
    }

    /// Runs a TLS step and sends the ciphertext it made.
    private func step(_ body: () throws(TransportError) -> Void) {
        guard let tls else { return }
        do throws(TransportError) {
            try body()
        } catch {
            return fail(error)
        }
        queue(tls.takeCiphertext())
    }

    private func becomeReady() {
        guard !isReady else { return }
        isReady = true
        let pending = early
        early = []
        if !pending.isEmpty { write(pending) }
        onReady()
    }

    private func write(_ plaintext: [UInt8]) {
        guard let tls else { return queue(plaintext) }
        step { () throws(TransportError) in try tls.writePlaintext(plaintext) }
    }

    private func queue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !isClosed else { return }
        outbox.append(contentsOf: bytes)
        guard outbox.count - sent <= Self.outboxLimit else {
            return fail(TransportError(.messageTooLarge, "the TURN server does not read"))
        }
        flush()
    }

    private func flush() {
        while sent < outbox.count {
            let offset = sent
            let written = outbox.withUnsafeBytes { raw -> Result<Int, TransportError> in
                Result { () throws(TransportError) in
                    try channel.write(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            switch written {
            case .success(let count) where count > 0: sent += count
            case .success: break
            case .failure(let error): return fail(error)
            }
            if case .success(0) = written { break }
        }
        if sent == outbox.count {
            outbox.removeAll(keepingCapacity: true)
            sent = 0
        }
        let wants = sent < outbox.count || !isConnected
        if wants != watchesWrites {
            watchesWrites = wants
            channel.setWriteInterest(wants)
        }
    }

    private func fail(_ error: TransportError) {
        guard !isClosed else { return }
        close()
        onClosed(error)
    }
}
