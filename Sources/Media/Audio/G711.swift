/// ITU-T G.711 companding: 16-bit linear PCM to and from 8-bit μ-law and A-law, bit-exact with the tables of
/// G.711 (Tables 1a/1b for A-law, 2a/2b for μ-law).
///
/// G.711 defines the laws on a 13-bit (A-law) and 14-bit (μ-law) uniform scale. A 16-bit sample is taken to
/// that scale by an arithmetic shift (3 or 2 bits), so each uniform value stands for the interval of 16-bit
/// values below the next one; negative values are read as one's complement magnitudes, which keeps the
/// decision intervals symmetric around zero (the convention of ITU-T G.191's reference coder). Decoded values
/// are the G.711 quantized values shifted back to 16 bits.
///
/// Segment boundaries (the decision values where the step size doubles), in G.711's own scale:
/// - μ-law (14-bit): 31, 95, 223, 479, 991, 2015, 4063, overload at 8159; quantized values 0...30 in steps of
///   2, then 33...93 in steps of 4, ..., 4191...8031 in steps of 256 (`((2m + 33) << s) - 33`).
/// - A-law (13-bit): 32, 64, 128, ..., 2048, overload at 4096; quantized values 1...31 and 33...63 in steps
///   of 2, then 66...126 in steps of 4, ..., 2112...4032 in steps of 128 (`(2m + 33) << (s - 1)`).
public enum G711 {
    /// Encodes one sample to μ-law (the code as sent on the wire: bits inverted, sign bit set for positive).
    /// - Parameter sample: a 16-bit linear sample.
    @inlinable
    public static func muLaw(_ sample: Int16) -> UInt8 {
        let value = Int(sample) >> 2
        let isNegative = value < 0
        // 8158 is the largest 14-bit magnitude μ-law encodes: 8159 is the overload decision value.
        let magnitude = min(isNegative ? ~value : value, 8158) + 33
        // The segment is the position of the highest set bit of magnitude + 33, counted from bit 5.
        let segment = (Int.bitWidth - 1 - magnitude.leadingZeroBitCount) - 5
        let mantissa = (magnitude >> (segment + 1)) & 0x0F
        let code = UInt8(truncatingIfNeeded: (segment << 4) | mantissa)
        return (isNegative ? 0x00 : 0x80) | (~code & 0x7F)
    }

    /// Decodes one μ-law code to a 16-bit linear sample (the G.711 quantized value times 4).
    /// - Parameter code: a μ-law code as received.
    @inlinable
    public static func linear(muLaw code: UInt8) -> Int16 {
        let bits = Int(~code)
        let segment = (bits >> 4) & 0x07
        let mantissa = bits & 0x0F
        let magnitude = (((mantissa << 1) + 33) << segment) - 33
        return Int16(truncatingIfNeeded: (bits & 0x80) != 0 ? -(magnitude << 2) : magnitude << 2)
    }

    /// Encodes one sample to A-law (the code as sent on the wire: even bits inverted, sign bit set for
    /// positive).
    /// - Parameter sample: a 16-bit linear sample.
    @inlinable
    public static func aLaw(_ sample: Int16) -> UInt8 {
        let value = Int(sample) >> 3
        let isNegative = value < 0
        let magnitude = isNegative ? ~value : value
        let code: Int
        if magnitude < 32 {
            code = magnitude >> 1
        } else {
            // Segments 1...7 hold magnitudes 32..<64, 64..<128, ..., 2048..<4096.
            let segment = (Int.bitWidth - 1 - magnitude.leadingZeroBitCount) - 4
            code = (segment << 4) | ((magnitude >> segment) & 0x0F)
        }
        return UInt8(truncatingIfNeeded: (isNegative ? 0x00 : 0x80) | code) ^ 0x55
    }

    /// Decodes one A-law code to a 16-bit linear sample (the G.711 quantized value times 8).
    /// - Parameter code: an A-law code as received.
    @inlinable
    public static func linear(aLaw code: UInt8) -> Int16 {
        let bits = Int(code ^ 0x55)
        let segment = (bits >> 4) & 0x07
        let mantissa = bits & 0x0F
        let magnitude = segment == 0 ? (mantissa << 1) + 1 : ((mantissa << 1) + 33) << (segment - 1)
        return Int16(truncatingIfNeeded: (bits & 0x80) != 0 ? magnitude << 3 : -(magnitude << 3))
    }

    /// The 256 decoded values of μ-law, indexed by code: the decoder's lookup table.
    public static let muLawTable: [Int16] = (0...255).map { linear(muLaw: UInt8($0)) }

    /// The 256 decoded values of A-law, indexed by code: the decoder's lookup table.
    public static let aLawTable: [Int16] = (0...255).map { linear(aLaw: UInt8($0)) }
}
