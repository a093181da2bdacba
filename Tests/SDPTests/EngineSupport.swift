import Foundation
import SDP
import Testing

/// A "random" source that always gives the same word: session id 1000000000 (the engine drops two bits).
struct FixedRandom: RandomNumberGenerator, Sendable {
    var value: UInt64 = 4_000_000_000

    mutating func next() -> UInt64 { value }
}

/// Key material 1, 2, 3, ... for the first call, 17, 18, 19, ... for the second: distinct and predictable.
struct PatternKeys: SRTPKeySource {
    var calls = 0

    mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        calls += 1
        return (0..<count).map { UInt8(truncatingIfNeeded: (calls - 1) * 16 + $0 + 1) }
    }
}

/// A key source that has nothing to give.
struct FailingKeys: SRTPKeySource {
    mutating func makeKeyMaterial(count: Int) -> [UInt8]? { nil }
}

extension OfferAnswer {
    /// An engine at 192.0.2.1:40000 with deterministic sources.
    static func testing(
        policy: SRTPPolicy = .off, codecs: [Codec] = Codec.defaultCodecs, rtcpMux: Bool = true,
        configure: (inout OfferAnswerConfiguration) -> Void = { _ in }
    ) -> OfferAnswer {
        var configuration = OfferAnswerConfiguration(
            address: "192.0.2.1", rtpPort: 40000, codecs: codecs, srtpPolicy: policy, isRTCPMuxEnabled: rtcpMux)
        configure(&configuration)
        return OfferAnswer(configuration: configuration, random: FixedRandom(), keySource: PatternKeys())
    }

    /// Takes `offer` and answers it.
    mutating func answer(_ offer: SessionDescription) throws -> Answer {
        try receiveOffer(offer)
        return try makeAnswer()
    }
}

/// Answers `offer` from its bytes with `bytes` and from its typed model with `model`: two answers go to
/// `agree` (which compares what it cares about), two failures must be the same `SDPError`, and one answer
/// alone is an issue that names `context`.
func expectBothPathsAgree(
    _ offer: SessionDescription, bytes: OfferAnswer, model: OfferAnswer, context: String,
    agree: (OfferAnswer.Answer, OfferAnswer.Answer) -> Void = { _, _ in }
) {
    var bytes = bytes
    var model = model
    let a = Result { try bytes.answer(offer) }
    let b = Result { try model.answer(offer.withModel) }
    switch (a, b) {
    case (.success(let a), .success(let b)):
        #expect(a.sessionDescription.description == b.sessionDescription.description, "\(context)")
        #expect(a.session == b.session, "\(context)")
        agree(a, b)
    case (.failure(let a), .failure(let b)):
        #expect(a as? SDPError == b as? SDPError, "\(context)")
    default:
        Issue.record("\(context): one path answered, the other did not")
    }
}

/// The key `PatternKeys` gives on call `n` (1-based), base64: what the answers and offers carry.
func patternKey(_ call: Int, count: Int = 30) -> String {
    Data((0..<count).map { UInt8(truncatingIfNeeded: (call - 1) * 16 + $0 + 1) }).base64EncodedString()
}
