/// A streaming sample-rate converter for one channel: polyphase windowed-sinc (a Kaiser-windowed low-pass at
/// `up × inputRate`, evaluated only at the output instants), with state kept between calls so frames of any
/// size join without seams.
///
/// The stop band starts at the lower of the two Nyquist frequencies and is at least `attenuation` dB down
/// (80 dB by default), so a tone above the output's Nyquist frequency does not alias into the output; the
/// pass band reaches `1 - transitionFraction` of that Nyquist frequency (0.85 by default: 3.4 kHz at 8 kHz)
/// with ripple far under 0.1 dB. The delay is about half the filter, `tapsPerPhase / 2` input samples
/// (about 4 ms for 48 kHz to 8 kHz and for 8 kHz to 48 kHz).
///
/// Rates whose reduced ratio needs more than 1024 phases use the closest ratio with at most 1024 by continued
/// fractions; 44.1, 48, 8, 16, 22.05, 32 kHz and their pairs are all exact, while 7999 Hz to 8000 Hz becomes
/// 1:1 (125 ppm off).
public struct Resampler: Sendable {
    /// The input rate in Hz.
    public let inputRate: Int
    /// The output rate in Hz.
    public let outputRate: Int
    /// The filter bank; `nil` when the rates are equal (samples pass through).
    private let design: ResamplerDesign?
    /// Input samples still needed: the last `tapsPerPhase - 1` before `nextInput`, and any after it.
    private var history: [Float]
    /// The input index (relative to `history[tapsPerPhase - 1]`) of the newest sample the next output uses.
    private var nextInput = 0
    /// The next output's phase, 0..<up.
    private var phase = 0

    /// Creates a converter.
    /// - Parameters:
    ///   - inputRate: the input rate in Hz (positive).
    ///   - outputRate: the output rate in Hz (positive).
    ///   - attenuation: the stop-band attenuation in dB, 80 by default.
    ///   - transitionFraction: the transition band's width as a fraction of the lower Nyquist frequency,
    ///     0.15 by default.
    public init(inputRate: Int, outputRate: Int, attenuation: Double = 80, transitionFraction: Double = 0.15) {
        self.inputRate = max(1, inputRate)
        self.outputRate = max(1, outputRate)
        if self.inputRate == self.outputRate {
            design = nil
            history = []
        } else {
            let design = ResamplerDesign(
                inputRate: self.inputRate, outputRate: self.outputRate, attenuation: max(20, attenuation),
                transitionFraction: min(max(transitionFraction, 0.01), 0.5))
            self.design = design
            history = Array(repeating: 0, count: design.tapsPerPhase - 1)
        }
    }

    /// The filter length per output sample (0 when the rates are equal): the cost of one output in
    /// multiply-adds.
    public var tapsPerPhase: Int { design?.tapsPerPhase ?? 0 }

    /// Converts the next block of input.
    /// - Parameter input: input samples, continuing the previous call's.
    /// - Returns: the output samples this input completes: about `input.count × outputRate / inputRate`,
    ///   varying by one from call to call when the ratio is not whole.
    public mutating func process(_ input: [Int16]) -> [Int16] {
        var output: [Int16] = []
        process(input, appendingTo: &output)
        return output
    }

    /// Converts the next block of input, appending the output to `output`.
    /// - Parameters:
    ///   - input: input samples, continuing the previous call's.
    ///   - output: where the output samples are appended.
    public mutating func process(_ input: [Int16], appendingTo output: inout [Int16]) {
        guard let design else {
            output.append(contentsOf: input)
            return
        }
        let taps = design.tapsPerPhase
        history.reserveCapacity(history.count + input.count)
        for sample in input { history.append(Float(sample)) }
        // `nextInput` indexes from the first sample after the kept history; the window for it is
        // history[nextInput ..< nextInput + taps].
        let available = history.count - (taps - 1)
        output.reserveCapacity(output.count + (input.count * design.up) / design.down + 2)
        var index = nextInput
        var phase = self.phase
        history.withUnsafeBufferPointer { samples in
            design.coefficients.withUnsafeBufferPointer { bank in
                guard let samples = samples.baseAddress, let bank = bank.baseAddress else { return }
                while index < available {
                    let value = Resampler.dot(bank + phase * taps, samples + index, taps)
                    output.append(Int16(clamping: Int(value.rounded())))
                    phase += design.down
                    index += phase / design.up
                    phase %= design.up
                }
            }
        }
        // Drop the samples no later output needs.
        let consumed = min(index, history.count)
        history.removeFirst(consumed)
        nextInput = index - consumed
        self.phase = phase
    }

    /// Forgets the input history, as if newly created.
    public mutating func reset() {
        guard let design else { return }
        history = Array(repeating: 0, count: design.tapsPerPhase - 1)
        nextInput = 0
        phase = 0
    }

    @inline(__always)
    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var sum0 = SIMD8<Float>()
        var sum1 = SIMD8<Float>()
        var i = 0
        let rawA = UnsafeRawPointer(a)
        let rawB = UnsafeRawPointer(b)
        let stride = MemoryLayout<Float>.stride
        while i + 16 <= count {
            sum0 +=
                rawA.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
            sum1 +=
                rawA.loadUnaligned(fromByteOffset: (i + 8) * stride, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: (i + 8) * stride, as: SIMD8<Float>.self)
            i += 16
        }
        if i < count {
            sum0 +=
                rawA.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
                * rawB.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
        }
        return (sum0 + sum1).sum()
    }
}
