/// CRC-32 as ISO/IEC 13239, ITU-T V.42 and zlib compute it (reflected polynomial 0xEDB88320, initial value and
/// final XOR all ones), which FINGERPRINT uses (RFC 8489 §14.7).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

/// FINGERPRINT's value (RFC 8489 §14.7): the CRC-32 of the message before it, XOR 0x5354554E ("STUN").
enum Fingerprint {
    static let xorValue: UInt32 = 0x5354_554E

    static func value(of bytes: some Sequence<UInt8>) -> UInt32 { CRC32.checksum(bytes) ^ xorValue }
}
