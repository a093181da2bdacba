import SDP

/// A deterministic generator (SplitMix64) for sessions and offer/answer engines in tests.
struct SeededRandom: RandomNumberGenerator, Sendable {
    var state: UInt64

    init(_ seed: UInt64 = 1) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// SRTP key material 1, 2, 3, ...: distinct and predictable.
struct CountingKeys: SRTPKeySource {
    var calls = 0

    mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        calls += 1
        return (0..<count).map { UInt8(truncatingIfNeeded: calls * 16 + $0) }
    }
}

extension OfferAnswer {
    /// An engine for `address`:`port` with deterministic sources.
    static func testing(address: String, port: UInt16, seed: UInt64 = 7, codecs: [Codec] = Codec.defaultCodecs)
        -> OfferAnswer
    {
        OfferAnswer(
            configuration: OfferAnswerConfiguration(address: address, rtpPort: port, codecs: codecs),
            random: SeededRandom(seed), keySource: CountingKeys())
    }
}
