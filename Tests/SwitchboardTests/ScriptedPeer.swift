import Foundation
import Media
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A SIP user agent on raw loopback UDP sockets that the test drives step by step, for what a provider
/// cannot be made to do: a PBX that sends 183 with early media, or one that transfers a call and never
/// hangs up. A reader thread keeps every datagram that arrives (with its source port), answers requests
/// other than INVITE and ACK with 200 (NOTIFY, BYE, ...), and counts the RTP that reaches its media port.
final class ScriptedPeer: Sendable {
    struct Received: Sendable {
        var message: SIPText
        var sourcePort: UInt16
    }

    let sip: SilentUDPPeer
    let rtp: SilentUDPPeer
    let tag = "pbx\(UInt32.random(in: 0...UInt32.max))"
    private let received = Mutex<[Received]>([])
    private let rtpReceived = Atomic<Int>(0)
    private let isStopped = Atomic<Bool>(false)
    private let sending = Atomic<Bool>(false)
    /// Signalled by each thread as it leaves, so the sockets close only once no thread uses them.
    private let threadsDone = DispatchSemaphore(value: 0)
    private let threads = Atomic<Int>(0)

    init() throws {
        sip = try SilentUDPPeer()
        rtp = try SilentUDPPeer()
        spawn { [self] in readSIP() }
        spawn { [self] in countRTP() }
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.add(1, ordering: .relaxed)
        Thread.detachNewThread { [threadsDone] in
            body()
            threadsDone.signal()
        }
    }

    var port: UInt16 { sip.port }
    /// RTP datagrams received on the media port so far.
    var rtpPackets: Int { rtpReceived.load(ordering: .relaxed) }

    /// Stops the threads, then closes the sockets (blocks about 0.1 s: call it off the cooperative pool).
    func close() {
        isStopped.store(true, ordering: .relaxed)
        sending.store(false, ordering: .relaxed)
        for _ in 0..<threads.load(ordering: .relaxed) { threadsDone.wait() }
        sip.close()
        rtp.close()
    }

    // MARK: Waiting

    /// The first message that `match` takes, waiting up to `seconds` for it to arrive.
    func message(seconds: Double = 10, _ match: (SIPText) -> Bool) async -> Received? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let found = received.withLock({ $0.first { match($0.message) } }) { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// The first request of `method`.
    func request(_ method: String, seconds: Double = 10) async -> Received? {
        await message(seconds: seconds) { $0.startLine.hasPrefix(method + " ") }
    }

    /// Every request of `method` so far.
    func requests(_ method: String) -> [SIPText] {
        received.withLock { $0.map(\.message).filter { $0.startLine.hasPrefix(method + " ") } }
    }

    // MARK: Sending

    /// An SDP answer for PCMU on this peer's media port.
    var answerSDP: String {
        [
            "v=0", "o=pbx 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio \(rtp.port) RTP/AVP 0", "a=rtpmap:0 PCMU/8000", "a=sendrecv", "",
        ].joined(separator: "\r\n")
    }

    /// Answers `request` (from `port`) with `status`, a To tag and Contact, and an SDP body when given.
    func respond(to request: Received, _ status: String, sdp: String? = nil) {
        let message = request.message
        var to = message["To"] ?? ""
        if !to.contains("tag=") { to += ";tag=\(tag)" }
        var lines = ["SIP/2.0 \(status)"]
        lines += message.all("Via").map { "Via: \($0)" }
        lines += ["From: \(message["From"] ?? "")", "To: \(to)", "Call-ID: \(message["Call-ID"] ?? "")"]
        lines += ["CSeq: \(message["CSeq"] ?? "")", "Contact: <sip:pbx@127.0.0.1:\(port)>"]
        if let sdp {
            lines += ["Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp]
        } else {
            lines += ["Content-Length: 0", "", ""]
        }
        sip.send(lines.joined(separator: "\r\n"), toPort: request.sourcePort)
    }

    /// Sends a request in the dialog an INVITE from the provider made (this side the UAS): to its Contact,
    /// From and To swapped.
    func sendInDialog(_ method: String, of invite: Received, cseq: Int, headers: [String]) {
        let message = invite.message
        let target = message.contactURI ?? "sip:127.0.0.1:\(invite.sourcePort)"
        var to = message["To"] ?? ""
        if !to.contains("tag=") { to += ";tag=\(tag)" }
        var lines = [
            "\(method) \(target) SIP/2.0",
            "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=z9hG4bK-\(method.lowercased())\(cseq)-\(tag)",
            "Max-Forwards: 70", "From: \(to)", "To: \(message["From"] ?? "")",
            "Call-ID: \(message["Call-ID"] ?? "")", "CSeq: \(cseq) \(method)",
            "Contact: <sip:pbx@127.0.0.1:\(port)>",
        ]
        lines += headers
        lines += ["Content-Length: 0", "", ""]
        sip.send(lines.joined(separator: "\r\n"), toPort: invite.sourcePort)
    }

    /// Sends a 440 Hz PCMU tone every 20 ms to `port` from the media socket until `stopMedia()`.
    func startMedia(toPort port: UInt16) {
        sending.store(true, ordering: .relaxed)
        spawn { [self] in
            var sequence: UInt16 = 1
            var timestamp: UInt32 = 160
            var phase = 0.0
            let ssrc: UInt32 = 0x5EED_0440
            var next = ContinuousClock.now
            while sending.load(ordering: .relaxed), !isStopped.load(ordering: .relaxed) {
                var packet: [UInt8] = [0x80, 0x00, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
                packet += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
                packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
                for _ in 0..<160 {
                    packet.append(G711.muLaw(Int16(8000 * sin(phase))))
                    phase += 2 * Double.pi * 440 / 8000
                }
                rtp.send(bytes: packet, toPort: port)
                sequence &+= 1
                timestamp &+= 160
                next += .milliseconds(20)
                let wait = next - ContinuousClock.now
                if wait > .zero { usleep(UInt32(wait.components.attoseconds / 1_000_000_000_000)) }
            }
        }
    }

    func stopMedia() { sending.store(false, ordering: .relaxed) }

    // MARK: Reading

    private func readSIP() {
        while !isStopped.load(ordering: .relaxed) {
            guard let (text, port) = sip.receiveFrom(milliseconds: 100) else { continue }
            let item = Received(message: SIPText(text), sourcePort: port)
            received.withLock { $0.append(item) }
            let line = item.message.startLine
            if !item.message.isResponse, !line.hasPrefix("INVITE "), !line.hasPrefix("ACK ") {
                respond(to: item, "200 OK")
            }
        }
    }

    private func countRTP() {
        while !isStopped.load(ordering: .relaxed) {
            guard let (text, _) = rtp.receiveFrom(milliseconds: 100) else { continue }
            if !text.isEmpty { rtpReceived.add(1, ordering: .relaxed) }
        }
    }
}

extension SilentUDPPeer {
    /// The next datagram within `milliseconds` and the port it came from, on the calling thread.
    func receiveFrom(milliseconds: Int32) -> (String, UInt16)? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
        }
        guard count > 0 else { return nil }
        return (String(decoding: buffer[0..<count], as: UTF8.self), UInt16(bigEndian: source.sin_port))
    }

    /// Sends raw bytes to 127.0.0.1:`port`.
    func send(bytes: [UInt8], toPort port: UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}
