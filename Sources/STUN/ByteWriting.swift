/// A value length rounded up to the four-byte boundary attributes are aligned on (RFC 8489 §14).
func padded(_ length: Int) -> Int { (length + 3) & ~3 }

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func appendBigEndian(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Overwrites two bytes at `offset` (which the caller has written before).
    mutating func setBigEndian(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }
}

extension Collection<UInt8> where Index == Int {
    /// Two bytes big-endian at `offset`; the caller has checked the bounds.
    func bigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    /// Four bytes big-endian at `offset`; the caller has checked the bounds.
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in offset..<offset + 4 { value = value << 8 | UInt32(self[i]) }
        return value
    }

    /// Eight bytes big-endian at `offset`; the caller has checked the bounds.
    func bigEndianUInt64(at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in offset..<offset + 8 { value = value << 8 | UInt64(self[i]) }
        return value
    }
}
