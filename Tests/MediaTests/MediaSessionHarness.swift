import Media
import SDP

/// Master keys from a counter: the same keys on every run.
struct CountingKeySource: SRTPKeySource {
    var seed: UInt8

    mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        seed &+= 1
        return (0..<count).map { UInt8(truncatingIfNeeded: Int(seed) &* 37 &+ $0) }
    }
}

/// Alice (192.0.2.1:4000) and Bob (192.0.2.2:5000) negotiating with the SDP engine, as the two user agents
/// of a call would.
struct Negotiation {
    var alice: OfferAnswer
    var bob: OfferAnswer

    init(codecs: [Codec] = [.pcmu, .telephoneEvent()], srtp: Bool = false, isRTCPMuxed: Bool = true) {
        func side(_ address: String, _ port: UInt16, _ seed: UInt8) -> OfferAnswer {
            let configuration = OfferAnswerConfiguration(
                address: address, rtpPort: port, codecs: codecs, srtpPolicy: srtp ? .mandatory : .off,
                isRTCPMuxEnabled: isRTCPMuxed)
            return OfferAnswer(
                configuration: configuration, random: SeededGenerator(seed: UInt64(seed)),
                keySource: CountingKeySource(seed: seed))
        }
        alice = side("192.0.2.1", 4000, 1)
        bob = side("192.0.2.2", 5000, 100)
    }

    /// Alice offers, Bob answers: what each side negotiated.
    mutating func negotiate() throws -> (alice: NegotiatedSession, bob: NegotiatedSession) {
        try bob.receiveOffer(alice.makeOffer())
        let answer = try bob.makeAnswer()
        return (try alice.receiveAnswer(answer.sessionDescription), answer.session)
    }
}

/// A test's audio device: a tone goes out; what is played and sent is kept.
struct TestAudio: MediaAudioPort {
    var frequency = 440.0
    var tone: ToneSource?
    var captures = 0
    var played: [MediaAudioFrame] = []
    var sent: [MediaAudioFrame] = []

    mutating func capture(count: Int, format: AudioFormat) -> [Int16]? {
        captures += 1
        if tone?.format != format { tone = ToneSource(frequency: frequency, level: -10, format: format) }
        return tone?.read(samplesPerChannel: count)
    }

    mutating func play(_ frame: MediaAudioFrame) { played.append(frame) }

    mutating func didSend(_ frame: MediaAudioFrame) { sent.append(frame) }

    /// The played frames that were decoded from packets.
    var decoded: [MediaAudioFrame] { played.filter { $0.origin == .media } }

    /// Whether the decoded audio is the tone: its frequency dominates the last second of it.
    func hearsTone(_ frequency: Double) -> Bool {
        guard let format = decoded.last?.format else { return false }
        let samples = Array(decoded.suffix(50).flatMap(\.samples))
        return AudioAnalysis.isDominant(frequency: frequency, in: samples, sampleRate: format.sampleRate)
    }
}

/// One side of a call in the virtual network.
struct Endpoint {
    var session: MediaSession<String>
    var audio = TestAudio()
    var events: [(time: MediaInstant, event: MediaSessionEvent<String>)] = []
    /// Its RTP and RTCP socket addresses, as packets from it show them.
    var rtpAddress: String
    var rtcpAddress: String

    init(
        _ address: String, rtcp: String, configuration: MediaSessionConfiguration = MediaSessionConfiguration(),
        seed: UInt64, at now: MediaInstant = .zero
    ) {
        var random = SeededGenerator(seed: seed)
        session = MediaSession(configuration: configuration, at: now, random: &random)
        rtpAddress = address
        rtcpAddress = rtcp
    }

    var digits: [DTMFDigit] {
        events.compactMap { if case .dtmf(let digit) = $0.event { digit } else { nil } }
    }
}

/// A datagram on its way.
struct Flight {
    var arrival: MediaInstant
    var bytes: [UInt8]
    var source: String
    var destination: String
    /// The sending endpoint's index.
    var sender: Int
}

/// A call between Alice (index 0) and Bob (index 1) in a virtual network, negotiated and configured.
struct Call {
    static let alice = 0
    static let bob = 1

    var network: VirtualNetwork
    /// The SDP engines, for re-offers.
    var negotiation: Negotiation
    var negotiated: (alice: NegotiatedSession, bob: NegotiatedSession)

    /// - Parameters:
    ///   - negotiation: the SDP engines of both sides.
    ///   - configuration: both sessions' configuration.
    ///   - activity: both sessions' activity.
    ///   - bobAddress: Bob's real RTP socket address, when it is not the one in his SDP (behind a NAT).
    init(
        _ negotiation: Negotiation = Negotiation(),
        configuration: MediaSessionConfiguration = MediaSessionConfiguration(),
        activity: MediaActivity = .active, bobAddress: String = "192.0.2.2:5000"
    ) throws {
        self.negotiation = negotiation
        negotiated = try self.negotiation.negotiate()
        network = VirtualNetwork(
            Endpoint("192.0.2.1:4000", rtcp: "192.0.2.1:4001", configuration: configuration, seed: 11),
            Endpoint(bobAddress, rtcp: "192.0.2.2:5001", configuration: configuration, seed: 22))
        try configure(Call.alice, negotiated.alice)
        try configure(Call.bob, negotiated.bob)
        network.endpoints[Call.alice].session.setActivity(activity)
        network.endpoints[Call.bob].session.setActivity(activity)
    }

    /// Alice re-offers (`hold` for a hold offer, `resume` for the offer that ends it) and Bob answers; both
    /// sides apply the outcome.
    mutating func renegotiate(hold: Bool = false, resume: Bool = false) throws {
        let offer =
            try hold
            ? negotiation.alice.makeHoldOffer()
            : resume ? negotiation.alice.makeResumeOffer() : negotiation.alice.makeOffer()
        try negotiation.bob.receiveOffer(offer)
        let answer = try negotiation.bob.makeAnswer()
        negotiated = (try negotiation.alice.receiveAnswer(answer.sessionDescription), answer.session)
        try configure(Call.alice, negotiated.alice)
        try configure(Call.bob, negotiated.bob)
    }

    /// Applies a negotiated session to one side, with the addresses from it.
    mutating func configure(_ index: Int, _ session: NegotiatedSession) throws {
        try network.endpoints[index].session.configure(
            session, rtpAddress: session.remoteRTPAddress?.description,
            rtcpAddress: session.remoteRTCPAddress?.description, at: network.now)
    }

    var alice: Endpoint {
        get { network.endpoints[Call.alice] }
        set { network.endpoints[Call.alice] = newValue }
    }

    var bob: Endpoint {
        get { network.endpoints[Call.bob] }
        set { network.endpoints[Call.bob] = newValue }
    }

    /// Datagrams delivered from one side, of one kind.
    func delivered(from sender: Int, _ kind: MediaDatagramKind) -> [Flight] {
        network.delivered.filter { $0.sender == sender && MediaDatagramKind(classifying: $0.bytes) == kind }
    }
}
