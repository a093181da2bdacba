// %-escaping (RFC 3261 §19.1.2, RFC 3986 §2.1).

/// Decodes %HH escapes once (no recursive decoding: `%2541` becomes `%41`). A `%` not followed by two hex
/// digits is kept as is.
func percentDecoded(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if bytes[i] == ASCII.percent, i + 2 < bytes.count,
            let hi = bytes[i + 1].hexValue, let lo = bytes[i + 2].hexValue
        {
            out.append(hi << 4 | lo)
            i += 3
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

/// Decodes %HH escapes once into a string (invalid UTF-8 repaired); NUL characters are kept.
func percentDecodedString(_ text: String) -> String {
    guard text.utf8.contains(ASCII.percent) else { return text }
    return String(decoding: percentDecoded(text), as: UTF8.self)
}

/// Escapes every byte for which `allowed` is false as %HH (upper-case hex).
func percentEncoded(_ text: String, allowed: (UInt8) -> Bool) -> String {
    guard !text.utf8.allSatisfy(allowed) else { return text }
    var out: [UInt8] = []
    for b in text.utf8 {
        if allowed(b) {
            out.append(b)
        } else {
            out.append(ASCII.percent)
            out.append(hexDigit(b >> 4))
            out.append(hexDigit(b & 0xF))
        }
    }
    return String(decoding: out, as: UTF8.self)
}

@inline(__always)
func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x41 + v - 10 }

/// The form used to compare URI components (RFC 3261 §19.1.4, RFC 3986 §6.2.2): an escape of an
/// unreserved character is decoded, other escapes keep their upper-case hex form, so `%61lice` equals
/// `alice` but `a%3Bb` does not equal `a;b`.
func percentNormalized(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    guard bytes.contains(ASCII.percent) else { return bytes }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if bytes[i] == ASCII.percent, i + 2 < bytes.count,
            let hi = bytes[i + 1].hexValue, let lo = bytes[i + 2].hexValue
        {
            let decoded = hi << 4 | lo
            if decoded.isUnreserved {
                out.append(decoded)
            } else {
                out.append(ASCII.percent)
                out.append(hexDigit(hi))
                out.append(hexDigit(lo))
            }
            i += 3
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

extension ByteScanner {
    /// Reads one or more characters that are either `allowed` or valid `%HH` escapes. Returns `nil` (and
    /// leaves the position) when there are none; throws on a broken escape.
    mutating func readEscaped(allowed: (UInt8) -> Bool) throws(MessageError) -> Range<Int>? {
        let start = index
        var i = start
        while i < end {
            let b = bytes[i]
            if allowed(b) {
                i &+= 1
            } else if b == ASCII.percent {
                guard i + 2 < end, bytes[i + 1].isHexDigit, bytes[i + 2].isHexDigit else {
                    index = i
                    throw .malformedURI("broken %-escape")
                }
                i &+= 3
            } else {
                break
            }
        }
        index = i
        return start < i ? start..<i : nil
    }
}
