import Foundation
import Media
import SIPTransport
import SwitchboardTesting
import Synchronization

/// A SIP user agent the test drives step by step on a virtual world's network, for what a provider cannot
/// be made to do: a PBX that sends 183 with early media, or one that transfers a call and never hangs up.
/// It keeps every datagram that arrives (with its source port), answers requests other than INVITE and ACK
/// with 200 (NOTIFY, BYE, ...), and counts the RTP that reaches its media port; its media is a 440 Hz tone
/// paced by the world's clock.
final class PBXPeer: Sendable {
    struct Received: Sendable {
        var message: SIPText
        var sourcePort: UInt16
    }

    let world: VirtualWorld
    let sip: ScriptedPeer
    let rtp: ScriptedPeer
    let tag = "pbx1"
    private let received = Mutex<[Received]>([])
    private let counter = PacketCounter()
    private let sending = Atomic<Bool>(false)

    init(world: VirtualWorld) throws {
        self.world = world
        sip = try ScriptedPeer(world: world, host: "127.0.0.1")
        rtp = try ScriptedPeer(world: world, host: "127.0.0.1")
        sip.onDatagram { [weak self] bytes, source in self?.arrived(bytes, from: source) }
        let counter = self.counter
        rtp.onDatagram { bytes, _ in if !bytes.isEmpty { counter.packets.add(1, ordering: .relaxed) } }
    }

    var port: UInt16 { sip.address.port }
    var rtpPackets: Int { counter.packets.load(ordering: .relaxed) }

    func close() {
        sending.store(false, ordering: .relaxed)
        sip.close()
        rtp.close()
    }

    // MARK: Waiting

    /// The first message that matches, running the world's clock up to `seconds` for one.
    func message(seconds: Double = 10, _ match: @escaping (SIPText) -> Bool) async -> Received? {
        var found: Received?
        world.run(
            until: {
                found = received.withLock { $0.first { match($0.message) } }
                return found != nil
            }, within: .milliseconds(Int(seconds * 1000)))
        return found
    }

    func request(_ method: String, seconds: Double = 10) async -> Received? {
        await message(seconds: seconds) { $0.startLine.hasPrefix(method + " ") }
    }

    func requests(_ method: String) -> [SIPText] {
        received.withLock { $0.map(\.message).filter { $0.startLine.hasPrefix(method + " ") } }
    }

    // MARK: Sending

    var answerSDP: String {
        [
            "v=0", "o=pbx 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio \(rtp.address.port) RTP/AVP 0", "a=rtpmap:0 PCMU/8000", "a=sendrecv", "",
        ].joined(separator: "\r\n")
    }

    private func send(_ text: String, toPort port: UInt16) {
        guard let destination = SocketAddress(ip: "127.0.0.1", port: port) else { return }
        sip.send(text, to: destination)
    }

    func respond(to request: Received, _ status: String, sdp: String? = nil) {
        send(
            request.message.response(status, tag: tag, contact: "sip:pbx@127.0.0.1:\(port)", sdp: sdp),
            toPort: request.sourcePort)
    }

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
        send(lines.joined(separator: "\r\n"), toPort: invite.sourcePort)
    }

    /// Sends a 440 Hz μ-law tone to `port` every 20 ms of virtual time until `stopMedia`.
    func startMedia(toPort port: UInt16) {
        guard let destination = SocketAddress(ip: "127.0.0.1", port: port) else { return }
        sending.store(true, ordering: .relaxed)
        world.loop.withLoop { sendFrame(ToneState(), to: destination) }
    }

    private struct ToneState {
        var sequence: UInt16 = 1
        var timestamp: UInt32 = 160
        var phase = 0.0
    }

    private func sendFrame(_ state: ToneState, to destination: SocketAddress) {
        guard sending.load(ordering: .relaxed) else { return }
        var state = state
        var packet: [UInt8] = [0x80, 0x00, UInt8(state.sequence >> 8), UInt8(state.sequence & 0xFF)]
        packet += withUnsafeBytes(of: state.timestamp.bigEndian, Array.init)
        packet += withUnsafeBytes(of: UInt32(0x5EED_0440).bigEndian, Array.init)
        for _ in 0..<160 {
            packet.append(G711.muLaw(Int16(8000 * sin(state.phase))))
            state.phase += 2 * Double.pi * 440 / 8000
        }
        rtp.send(bytes: packet, to: destination)
        state.sequence &+= 1
        state.timestamp &+= 160
        world.loop.scheduleTimer(after: .milliseconds(20)) { [weak self] in self?.sendFrame(state, to: destination) }
    }

    /// Sends one raw RTP packet to `port`.
    func sendRTP(_ packet: [UInt8], toPort port: UInt16) {
        guard let destination = SocketAddress(ip: "127.0.0.1", port: port) else { return }
        rtp.send(bytes: packet, to: destination)
    }

    func stopMedia() { sending.store(false, ordering: .relaxed) }

    // MARK: Reading

    private func arrived(_ bytes: [UInt8], from source: SocketAddress) {
        let item = Received(message: SIPText(String(decoding: bytes, as: UTF8.self)), sourcePort: source.port)
        received.withLock { $0.append(item) }
        let line = item.message.startLine
        if !item.message.isResponse, !line.hasPrefix("INVITE "), !line.hasPrefix("ACK ") {
            respond(to: item, "200 OK")
        }
    }
}

/// The RTP packets that reached the peer, shared with its socket's handler.
private final class PacketCounter: Sendable {
    let packets = Atomic<Int>(0)
}
