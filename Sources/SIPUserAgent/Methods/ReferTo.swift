public import SIPMessage

/// Refer-To values (RFC 3515 §2.1) with an embedded Replaces for attended transfer (RFC 3891 §7):
/// `<sip:bob@example.com?Replaces=call%40host%3Bto-tag%3Da%3Bfrom-tag%3Db>`.
public enum ReferTo {
    /// The Refer-To address for `target`, with `replaces` as a URI header when given.
    public static func address(target: URI, replaces: Replaces?) -> NameAddress {
        guard let replaces, case .sip(var sip) = target else { return NameAddress(uri: target) }
        var headers = sip.headers.filter { $0.name.lowercased() != "replaces" }
        headers.append(Parameter("Replaces", percentEncode(replaces.wireForm)))
        sip.headers = headers
        return NameAddress(uri: .sip(sip))
    }

    /// The target without its URI headers, and the Replaces one of them carries, if any.
    public static func split(_ referTo: NameAddress) -> (target: URI, replaces: Replaces?) {
        guard case .sip(var sip) = referTo.uri else { return (referTo.uri, nil) }
        let headers = sip.headers
        sip.headers = []
        let replaces = headers.first { $0.name.lowercased() == "replaces" }.flatMap { header in
            header.value.flatMap { try? Replaces(percentDecode($0)) }
        }
        return (.sip(sip), replaces)
    }

    /// %-escapes everything but RFC 3261's unreserved characters (§19.1.2 hvalue).
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let isUnreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-_.!~*'()".utf8.contains(byte)
            if isUnreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Decodes %-escapes once; malformed escapes stay as written.
    static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
