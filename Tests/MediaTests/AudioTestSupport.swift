import Media

/// A deterministic generator (SplitMix64), so "random" inputs are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum AudioFixtures {
    /// `count` samples of a tone at `frequency`, `level` dBFS peak.
    static func tone(_ frequency: Double, count: Int, sampleRate: Int, level: Double = -10) -> [Int16] {
        var source = ToneSource(frequency: frequency, level: level, format: AudioFormat(sampleRate: sampleRate))
        return source.read(samplesPerChannel: count) ?? []
    }

    /// Splits samples into frames of `size` (the last one dropped when short).
    static func frames(_ samples: [Int16], size: Int) -> [[Int16]] {
        stride(from: 0, to: samples.count - size + 1, by: size).map { Array(samples[$0..<$0 + size]) }
    }

    /// A path in the temporary directory unique to this process and `name`.
    static func temporaryPath(_ name: String) -> String {
        "/tmp/switchboard-media-tests-\(processID)-\(name)"
    }

    static let processID = Int.random(in: 100_000...999_999)
}
