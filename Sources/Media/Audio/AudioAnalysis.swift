#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Measurements on PCM16 audio for tests, the CLI and the demo: levels, Goertzel tone power, tone-to-residual
/// ratio, and the dominant frequency.
///
/// Levels are in dBFS with a full-scale sine (peak 32767) at 0 dBFS, so a `ToneSource` at `level: -10` reads
/// -10 dBFS by `level(_:)` and by `goertzel(_:sampleRate:frequency:)`.
public enum AudioAnalysis {
    /// The RMS of a full-scale sine: the 0 dBFS reference.
    static let fullScaleRMS = 32767 / 2.0.squareRoot()

    /// The root mean square of the samples (0 for none).
    /// - Parameter samples: PCM16 samples.
    public static func rms(_ samples: some Collection<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return (sum / Double(samples.count)).squareRoot()
    }

    /// The RMS level in dBFS (-infinity for digital silence).
    /// - Parameter samples: PCM16 samples.
    public static func level(_ samples: some Collection<Int16>) -> Double { decibels(rms(samples) / fullScaleRMS) }

    /// The level of one frequency by the Goertzel algorithm, in dBFS: a sine of peak A at `frequency` reads
    /// `20·log10(A / 32767)`. Frequencies that are not a whole number of cycles in the block leak a little; a
    /// block of at least a few hundred cycles keeps that under 0.1 dB.
    /// - Parameters:
    ///   - samples: PCM16 mono samples.
    ///   - sampleRate: their rate in Hz.
    ///   - frequency: the frequency to measure, in Hz.
    public static func goertzel(_ samples: [Int16], sampleRate: Int, frequency: Double) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        let coefficient = 2 * cos(omega)
        var s1 = 0.0
        var s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)
        let amplitude = 2 * power.squareRoot() / Double(samples.count)
        return decibels(amplitude / 32767)
    }

    /// A sine fitted to a block by least squares at a known frequency: its level, and what is left.
    public struct ToneMeasurement: Sendable, Hashable {
        /// The frequency fitted, in Hz.
        public var frequency: Double
        /// The fitted sine's peak level in dBFS.
        public var level: Double
        /// The level of everything else (the samples minus the fitted sine), RMS in dBFS.
        public var residualLevel: Double
        /// The tone's power over the residual's, in dB: the SNR of a tone through a codec.
        public var toneToResidual: Double { level - residualLevel }
    }

    /// Fits `a·cos(ωn) + b·sin(ωn) + c` to the samples and measures the sine against the residual. Unlike a
    /// sample-by-sample comparison with the input, this needs no alignment, so it measures a codec's or
    /// resampler's output however much it delays.
    /// - Parameters:
    ///   - samples: PCM16 mono samples.
    ///   - sampleRate: their rate in Hz.
    ///   - frequency: the tone's frequency in Hz.
    public static func measureTone(_ samples: [Int16], sampleRate: Int, frequency: Double) -> ToneMeasurement {
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        // Normal equations of the three-parameter least-squares fit (basis cos, sin, 1).
        var (cc, ss, cs, c1, s1, count) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        var (xc, xs, x1) = (0.0, 0.0, 0.0)
        for (n, sample) in samples.enumerated() {
            let (c, s, x) = (cos(omega * Double(n)), sin(omega * Double(n)), Double(sample))
            cc += c * c
            ss += s * s
            cs += c * s
            c1 += c
            s1 += s
            count += 1
            xc += x * c
            xs += x * s
            x1 += x
        }
        let m = [[cc, cs, c1], [cs, ss, s1], [c1, s1, count]]
        let v = [xc, xs, x1]
        let fit = solve3(m, v) ?? [0, 0, 0]
        var residual = 0.0
        for (n, sample) in samples.enumerated() {
            let model = fit[0] * cos(omega * Double(n)) + fit[1] * sin(omega * Double(n)) + fit[2]
            residual += (Double(sample) - model) * (Double(sample) - model)
        }
        let residualRMS = samples.isEmpty ? 0 : (residual / Double(samples.count)).squareRoot()
        let amplitude = (fit[0] * fit[0] + fit[1] * fit[1]).squareRoot()
        return ToneMeasurement(
            frequency: frequency, level: decibels(amplitude / 32767),
            residualLevel: decibels(residualRMS / fullScaleRMS)
        )
    }

    /// The signal-to-noise ratio of `signal` against a `reference` it should equal, in dB: reference power over
    /// the power of the difference. The two must be aligned (same delay).
    /// - Parameters:
    ///   - reference: the expected samples.
    ///   - signal: the samples measured; compared over the common length.
    public static func signalToNoise(reference: [Int16], signal: [Int16]) -> Double {
        let count = min(reference.count, signal.count)
        var power = 0.0
        var noise = 0.0
        for i in 0..<count {
            let r = Double(reference[i])
            let d = Double(signal[i]) - r
            power += r * r
            noise += d * d
        }
        guard noise > 0 else { return .infinity }
        return 10 * log10(power / noise)
    }

    /// The frequency with the most energy, from a Hann-windowed FFT of up to 65536 samples, refined between
    /// bins by Gaussian interpolation (better than a tenth of a bin); `nil` for silence or fewer than 64 samples.
    /// - Parameters:
    ///   - samples: PCM16 mono samples.
    ///   - sampleRate: their rate in Hz.
    public static func dominantFrequency(_ samples: [Int16], sampleRate: Int) -> Double? {
        Spectrum(samples).dominantFrequency(sampleRate: sampleRate)
    }

    /// True when the dominant frequency is within `tolerance` (a fraction: 0.02 is ±2%) of `frequency`.
    /// - Parameters:
    ///   - frequency: the frequency expected, in Hz.
    ///   - samples: PCM16 mono samples.
    ///   - sampleRate: their rate in Hz.
    ///   - tolerance: the relative tolerance, 0.02 by default.
    public static func isDominant(
        frequency: Double, in samples: [Int16], sampleRate: Int, tolerance: Double = 0.02
    ) -> Bool {
        guard let found = dominantFrequency(samples, sampleRate: sampleRate) else { return false }
        return abs(found - frequency) <= tolerance * frequency
    }

    /// `20·log10(ratio)`, -infinity for 0.
    static func decibels(_ ratio: Double) -> Double { ratio > 0 ? 20 * log10(ratio) : -.infinity }

    /// Solves a 3×3 linear system by Cramer's rule; `nil` when singular.
    static func solve3(_ m: [[Double]], _ v: [Double]) -> [Double]? {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        guard abs(d) > 1e-9 else { return nil }
        return (0..<3).map { column in
            var replaced = m
            for row in 0..<3 { replaced[row][column] = v[row] }
            return det(replaced) / d
        }
    }
}
