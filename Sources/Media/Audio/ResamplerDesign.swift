#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The polyphase filter bank of a `Resampler`: a Kaiser-windowed sinc low-pass designed at the intermediate
/// rate `up × inputRate`, split into `up` phases of `tapsPerPhase` coefficients each.
struct ResamplerDesign: Sendable {
    /// The interpolation factor L (phases).
    let up: Int
    /// The decimation factor M.
    let down: Int
    /// Coefficients per phase, a multiple of 8 (zero-padded) for the vector loop.
    let tapsPerPhase: Int
    /// `up × tapsPerPhase` coefficients, phase after phase; within a phase in the order of the input samples
    /// they multiply (oldest first), so each output is one contiguous dot product.
    let coefficients: [Float]

    /// The most phases a design uses; a ratio that needs more is approximated (see `Resampler`).
    static let maxPhases = 1024

    /// - Parameters:
    ///   - inputRate: the input rate in Hz.
    ///   - outputRate: the output rate in Hz.
    ///   - attenuation: the stop-band attenuation in dB.
    ///   - transitionFraction: the transition band's width as a fraction of the lower Nyquist frequency.
    init(inputRate: Int, outputRate: Int, attenuation: Double, transitionFraction: Double) {
        (up, down) = ResamplerDesign.ratio(outputRate, inputRate, maxNumerator: ResamplerDesign.maxPhases)
        // The stop band starts at the lower of the two Nyquist frequencies, so nothing above the output's
        // Nyquist frequency aliases into its band, and nothing the input cannot hold is imaged.
        let nyquist = Double(min(inputRate, outputRate)) / 2
        let transition = max(nyquist * transitionFraction, 1)
        let intermediateRate = Double(inputRate) * Double(up)
        let cutoff = (nyquist - transition / 2) / intermediateRate  // cycles per intermediate sample
        // Kaiser's estimates: length for the attenuation and transition width, and the window's beta.
        let length = Int(((attenuation - 7.95) / (14.36 * transition / intermediateRate)).rounded(.up)) + 1
        let beta =
            attenuation > 50
            ? 0.1102 * (attenuation - 8.7)
            : attenuation >= 21 ? 0.5842 * pow(attenuation - 21, 0.4) + 0.07886 * (attenuation - 21) : 0
        let taps = ((length + up - 1) / up + 7) / 8 * 8
        let total = taps * up
        let center = Double(total - 1) / 2
        let besselBeta = ResamplerDesign.besselI0(beta)
        var prototype = [Double](repeating: 0, count: total)
        for m in 0..<total {
            let x = Double(m) - center
            let ratio = x / center
            let window = ResamplerDesign.besselI0(beta * (max(0, 1 - ratio * ratio)).squareRoot()) / besselBeta
            let argument = 2 * cutoff * x
            let sinc = argument == 0 ? 1 : sin(Double.pi * argument) / (Double.pi * argument)
            prototype[m] = 2 * cutoff * sinc * window
        }
        // Each phase sums to 1, so a constant input comes out unchanged whatever the phase.
        var bank = [Float](repeating: 0, count: total)
        for phase in 0..<up {
            var sum = 0.0
            for k in 0..<taps { sum += prototype[phase + k * up] }
            let gain = sum == 0 ? 0 : 1 / sum
            for k in 0..<taps {
                // Output y = Σ h[p + kL]·x[i - k]: store h[p + kL] at position taps-1-k to pair with x oldest first.
                bank[phase * taps + (taps - 1 - k)] = Float(prototype[phase + k * up] * gain)
            }
        }
        self.tapsPerPhase = taps
        self.coefficients = bank
    }

    /// `numerator / denominator` in lowest terms, or the closest fraction with a numerator of at most
    /// `maxNumerator` (continued fractions) when the exact one is larger.
    static func ratio(_ numerator: Int, _ denominator: Int, maxNumerator: Int) -> (Int, Int) {
        let divisor = gcd(numerator, denominator)
        let (p, q) = (numerator / divisor, denominator / divisor)
        if p <= maxNumerator { return (p, q) }
        var (h0, h1, k0, k1) = (0, 1, 1, 0)
        var (a, b) = (p, q)
        while b != 0 {
            let term = a / b
            let (h2, k2) = (term * h1 + h0, term * k1 + k0)
            if h2 > maxNumerator { break }
            (h0, h1, k0, k1) = (h1, h2, k1, k2)
            (a, b) = (b, a - term * b)
        }
        return (max(h1, 1), max(k1, 1))
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }

    /// The zeroth-order modified Bessel function of the first kind, by its power series.
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let half = x / 2
        for k in 1..<50 {
            term *= (half / Double(k)) * (half / Double(k))
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }
}
