#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The magnitude spectrum of a block of samples: a Hann window and an iterative radix-2 FFT over the largest
/// power of two that fits (at most 65536 samples, taken from the middle of the block).
struct Spectrum {
    /// Magnitudes of bins 0...size/2.
    let magnitudes: [Double]
    /// The FFT size.
    let size: Int

    init(_ samples: [Int16]) {
        var size = 1
        while size * 2 <= min(samples.count, 65536) { size *= 2 }
        self.size = size
        guard size >= 64 else {
            magnitudes = []
            return
        }
        let start = (samples.count - size) / 2
        var real = [Double](repeating: 0, count: size)
        var imaginary = [Double](repeating: 0, count: size)
        for i in 0..<size {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(size))
            real[i] = Double(samples[start + i]) * window
        }
        Spectrum.transform(&real, &imaginary)
        magnitudes = (0...size / 2).map { (real[$0] * real[$0] + imaginary[$0] * imaginary[$0]).squareRoot() }
    }

    /// The peak's frequency, interpolated on the log magnitudes of the peak bin and its neighbours (exact for
    /// a Gaussian peak, close for Hann's); `nil` when there is no peak.
    func dominantFrequency(sampleRate: Int) -> Double? {
        guard magnitudes.count > 3 else { return nil }
        var peak = 1
        for bin in 1..<magnitudes.count - 1 where magnitudes[bin] > magnitudes[peak] { peak = bin }
        guard magnitudes[peak] > 0 else { return nil }
        let (left, centre, right) = (magnitudes[peak - 1], magnitudes[peak], magnitudes[peak + 1])
        var offset = 0.0
        if left > 0, right > 0 {
            let (a, b, c) = (log(left), log(centre), log(right))
            let denominator = a - 2 * b + c
            if denominator < 0 { offset = min(max(0.5 * (a - c) / denominator, -0.5), 0.5) }
        }
        return (Double(peak) + offset) * Double(sampleRate) / Double(size)
    }

    /// In-place radix-2 decimation-in-time FFT; the count must be a power of two.
    static func transform(_ real: inout [Double], _ imaginary: inout [Double]) {
        let n = real.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                real.swapAt(i, j)
                imaginary.swapAt(i, j)
            }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            let (stepReal, stepImaginary) = (cos(angle), sin(angle))
            var start = 0
            while start < n {
                var (wReal, wImaginary) = (1.0, 0.0)
                for k in 0..<length / 2 {
                    let even = start + k
                    let odd = even + length / 2
                    let tReal = real[odd] * wReal - imaginary[odd] * wImaginary
                    let tImaginary = real[odd] * wImaginary + imaginary[odd] * wReal
                    real[odd] = real[even] - tReal
                    imaginary[odd] = imaginary[even] - tImaginary
                    real[even] += tReal
                    imaginary[even] += tImaginary
                    (wReal, wImaginary) = (
                        wReal * stepReal - wImaginary * stepImaginary,
                        wReal * stepImaginary + wImaginary * stepReal
                    )
                }
                start += length
            }
            length *= 2
        }
    }
}
