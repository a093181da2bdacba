/// Base64 (RFC 4648 §4, with padding) for the handshake's key and accept values. SIPTransport does not
/// depend on SDP, whose codec serves SDES keys; this one stays internal.
enum WebSocketBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let a = iterator.next() {
            let b = iterator.next()
            let c = iterator.next()
            let n = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(b == nil ? UInt8(ascii: "=") : alphabet[Int(n >> 6 & 63)])
            out.append(c == nil ? UInt8(ascii: "=") : alphabet[Int(n & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a padded base64 string; `nil` if it is not one (wrong length, other characters,
    /// non-zero padding bits).
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        var k = 0
        while k < chars.count {
            var n: UInt32 = 0
            var padding = 0
            for j in 0..<4 {
                let c = chars[k + j]
                if c == UInt8(ascii: "=") {
                    // Padding only at the end of the last group, in its last one or two places.
                    guard k + 4 == chars.count, j >= 2 else { return nil }
                    padding += 1
                    n <<= 6
                    continue
                }
                guard padding == 0, let value = sextet(c) else { return nil }
                n = n << 6 | UInt32(value)
            }
            let group = [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            if padding == 2, group[1] != 0 || group[2] != 0 { return nil }
            if padding == 1, group[2] != 0 { return nil }
            out.append(contentsOf: group[0..<(3 - padding)])
            k += 4
        }
        return out
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
