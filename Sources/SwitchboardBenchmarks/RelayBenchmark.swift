import CAllocationCounter
import Foundation
import Media
import SDP
import STUN

// `--only relay`: what a packet relayed through TURN costs beside a direct one, on one core (issue 14). A call's
// media session (G.711, no SRTP, the stack's MediaSession) makes each 20 ms packet and the far session takes it:
// that is the direct packet. A relayed packet adds the sending client's wrap (`TURNClient.send` on a bound
// channel: ChannelData, RFC 8656 §12.5) and the receiving client's unwrap (`TURNClient.receive`: ChannelData to
// a `data` event), what ICEDriver and TURNRelay run per packet besides the socket. Each stage is timed over the
// same packets in thread CPU time; min/median/max ns per packet over the repetitions, and heap allocations per
// packet. The relay server's own work is not this side's and is not counted.

/// Two TURN clients brought to an allocation with a bound channel by a scripted server, without I/O.
private struct RelayedClients {
    static let username = "bench"
    static let password = "bench-password"
    static let realm = "bench.test"
    static let peer = STUNTransportAddress(address: .v4(0xC633_6402), port: 50_002)

    var sender: TURNClient<SystemRandomNumberGenerator>
    var receiver: TURNClient<SystemRandomNumberGenerator>
    var receiverChannel: TURNChannelNumber

    init?() {
        guard var sender = Self.bound(), var receiver = Self.bound(),
            let channel = receiver.channel(for: Self.peer)
        else { return nil }
        // Both ready: nothing is pending, so the measured calls do only per-packet work.
        _ = sender.timerFired(at: .zero)
        _ = receiver.timerFired(at: .zero)
        self.sender = sender
        self.receiver = receiver
        receiverChannel = channel
    }

    /// A client with an allocation and a channel bound to `peer`.
    private static func bound() -> TURNClient<SystemRandomNumberGenerator>? {
        let configuration = TURNClientConfiguration(
            credentials: TURNCredentials(username: username, password: password))
        var client = TURNClient(configuration: configuration, random: SystemRandomNumberGenerator())
        var outbox = client.start(at: .zero)
        for _ in 0..<8 {
            guard let request = sent(outbox) else { break }
            outbox = client.receive(answer(request), at: .zero)
            if case .allocated = client.state, client.channel(for: peer) == nil {
                outbox += client.bindChannel(to: peer, at: .zero)
            }
        }
        return client.channel(for: peer) != nil ? client : nil
    }

    private static func sent(_ actions: [TURNClientAction]) -> STUNMessage? {
        for case .send(let bytes) in actions {
            if let message = try? STUNReceivedMessage(decoding: bytes).message { return message }
        }
        return nil
    }

    /// The server's answer: 401 with REALM and NONCE to a request without credentials, else a success signed
    /// with the long-term key (an allocation for Allocate).
    private static func answer(_ request: STUNMessage) -> [UInt8] {
        guard request.username != nil else {
            return STUNMessage(
                .errorResponse, request.method, transactionID: request.transactionID,
                attributes: [.errorCode(.unauthenticated, reason: "Unauthenticated"), .realm(realm), .nonce("n1")]
            ).encoded()
        }
        let id = request.transactionID
        let attributes: [STUNAttribute] =
            request.method == .allocate
            ? [
                .xorRelayedAddress(STUNTransportAddress(address: .v4(0xC000_020F), port: 50_000), transactionID: id),
                .lifetime(seconds: 600),
                .xorMappedAddress(STUNTransportAddress(address: .v4(0xC000_0201), port: 40_000), transactionID: id),
            ] : []
        guard let key = STUNKey.longTerm(username: username, realm: realm, password: password) else { return [] }
        return STUNMessage(.successResponse, request.method, transactionID: id, attributes: attributes)
            .encoded(integrity: STUNIntegrity(key: key))
    }
}

/// A tone to send; what is played is dropped.
private struct TonePort: MediaAudioPort {
    var tone = ToneSource(frequency: 1000, level: -12, format: AudioFormat(sampleRate: 8000))

    mutating func capture(count: Int, format: AudioFormat) -> [Int16]? { tone.read(samplesPerChannel: count) }
    mutating func didSend(_ frame: MediaAudioFrame) {}
}

/// Keys for the offer/answer engines (SRTP is off).
private struct BenchKeys: SRTPKeySource {
    mutating func makeKeyMaterial(count: Int) -> [UInt8]? { [UInt8](repeating: 3, count: count) }
}

/// Two media sessions negotiated for G.711 without SRTP: Alice sends to Bob.
private func negotiatedSessions() throws -> (MediaSession<Int>, MediaSession<Int>) {
    func engine(_ address: String, _ port: UInt16) -> OfferAnswer {
        OfferAnswer(
            configuration: OfferAnswerConfiguration(address: address, rtpPort: port, codecs: [.pcmu]),
            random: SystemRandomNumberGenerator(), keySource: BenchKeys())
    }
    var alice = engine("192.0.2.1", 4000)
    var bob = engine("192.0.2.2", 5000)
    try bob.receiveOffer(try alice.makeOffer())
    let answer = try bob.makeAnswer()
    let aliceSession = try alice.receiveAnswer(answer.sessionDescription)
    var random = SystemRandomNumberGenerator()
    var sender = MediaSession<Int>(at: .zero, random: &random)
    var receiver = MediaSession<Int>(at: .zero, random: &random)
    try sender.configure(aliceSession, rtpAddress: 2, rtcpAddress: 2, at: .zero)
    try receiver.configure(answer.session, rtpAddress: 1, rtcpAddress: 1, at: .zero)
    sender.setActivity(.active)
    receiver.setActivity(.active)
    return (sender, receiver)
}

func runRelayBenchmark(packets: Int, repetitions: Int) {
    guard var clients = RelayedClients(), var (sender, receiver) = try? negotiatedSessions() else {
        FileHandle.standardError.write(Data("relay benchmark: setup failed\n".utf8))
        exit(1)
    }
    print("# switchboard relay benchmark: \(packets) packets x \(repetitions) reps, G.711 20 ms, no SRTP")
    print("# columns: RESULT relay stage min_ns med_ns max_ns allocations_per_packet")
    var port = TonePort()
    var tick = 0
    var checksum = 0
    // The direct packet: the sender's session makes it, the receiver's takes it.
    func sessionStage() -> [[UInt8]] {
        var made: [[UInt8]] = []
        made.reserveCapacity(packets)
        for _ in 0..<packets {
            tick += 1
            let now = MediaInstant(nanoseconds: Int64(tick) * 20_000_000)
            sender.advance(to: now, audio: &port)
            while let transmission = sender.nextTransmission() {
                receiver.receive(transmission.bytes, from: 1, on: transmission.port, at: now)
                if MediaDatagramKind(classifying: transmission.bytes) == .rtp { made.append(transmission.bytes) }
            }
            while receiver.nextTransmission() != nil {}
            while receiver.nextEvent() != nil {}
        }
        return made
    }
    func wrapStage(_ payloads: [[UInt8]]) -> [[UInt8]] {
        var wrapped: [[UInt8]] = []
        wrapped.reserveCapacity(payloads.count)
        for payload in payloads {
            for case .send(let bytes) in clients.sender.send(payload, to: RelayedClients.peer, at: .zero) {
                wrapped.append(bytes)
            }
        }
        return wrapped
    }
    func unwrapStage(_ messages: [[UInt8]]) {
        for message in messages {
            for case .event(.data(_, let payload)) in clients.receiver.receive(message, at: .zero) {
                checksum &+= payload.count
            }
        }
    }
    var stages: [(String, [Double], [Double])] = [("session", [], []), ("wrap", [], []), ("unwrap", [], [])]
    for repetition in 0...repetitions {
        var start = threadCPUSeconds()
        var allocations = switchboard_allocation_count()
        let payloads = sessionStage()
        let session = (threadCPUSeconds() - start, switchboard_allocation_count() - allocations)
        start = threadCPUSeconds()
        allocations = switchboard_allocation_count()
        let wrapped = wrapStage(payloads)
        let wrap = (threadCPUSeconds() - start, switchboard_allocation_count() - allocations)
        // What the receiver's server sends it: the same payloads on its channel.
        let arriving = payloads.map {
            TURNChannelData(channel: clients.receiverChannel, payload: $0).encoded()
        }
        start = threadCPUSeconds()
        allocations = switchboard_allocation_count()
        unwrapStage(arriving)
        let unwrap = (threadCPUSeconds() - start, switchboard_allocation_count() - allocations)
        checksum &+= wrapped.count
        guard repetition > 0, !payloads.isEmpty else { continue }
        let count = Double(payloads.count)
        for (index, figures) in [session, wrap, unwrap].enumerated() {
            stages[index].1.append(figures.0 * 1e9 / count)
            stages[index].2.append(Double(figures.1) / count)
        }
    }
    blackHole(checksum)
    for (name, samples, allocations) in stages {
        let m = Measurement(samples: samples)
        let allocationsPerPacket = allocations.isEmpty ? 0 : allocations.sorted()[allocations.count / 2]
        print(
            [
                "RESULT", "relay", name, String(format: "%.0f", m.min), String(format: "%.0f", m.median),
                String(format: "%.0f", m.max), String(format: "%.2f", allocationsPerPacket),
            ].joined(separator: "\t"))
    }
    let direct = Measurement(samples: stages[0].1).median
    let relayed = direct + Measurement(samples: stages[1].1).median + Measurement(samples: stages[2].1).median
    print(
        "# direct packet \(String(format: "%.0f", direct)) ns, relayed \(String(format: "%.0f", relayed)) ns: "
            + "x\(String(format: "%.2f", relayed / max(direct, 1)))")
}
