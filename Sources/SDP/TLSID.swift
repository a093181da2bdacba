/// `a=tls-id:<id>` (RFC 8842 §5): names a DTLS association; a new value in an offer asks for a new
/// association, the same value keeps it (across ICE restarts, too).
public struct TLSID: SDPAttributeValue {
    public static let attributeName = "tls-id"

    /// The identifier: 20 to 255 characters of ALPHA, DIGIT, `+`, `/`, `-`, `_`.
    public var value: String

    /// - Parameter value: the identifier, as validated by ``init(parsingAttributeValue:)``.
    public init(_ value: String) { self.value = value }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard (20...255).contains(value.utf8.count) else {
            throw TLSID.malformed(value, "a tls-id is 20 to 255 characters")
        }
        guard value.utf8.allSatisfy(TLSID.isIDChar) else {
            throw TLSID.malformed(value, "a tls-id is ALPHA, DIGIT, +, /, - and _")
        }
        self.value = value
    }

    /// A fresh identifier of 32 characters (192 random bits), from the caller's generator.
    public static func random(using generator: inout some RandomNumberGenerator) -> TLSID {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let characters = (0..<32).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        return TLSID(String(decoding: characters, as: UTF8.self))
    }

    /// An identifier of one character per byte of `bytes` (their low six bits), for 20 to 255 random bytes (the
    /// unpredictable source SRTP keys come from); `nil` for another count.
    public init?(randomBytes bytes: [UInt8]) {
        guard (20...255).contains(bytes.count) else { return nil }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        self.init(String(decoding: bytes.map { alphabet[Int($0 & 63)] }, as: UTF8.self))
    }

    public var attributeValue: String { value }

    static func isIDChar(_ byte: UInt8) -> Bool {
        byte.isAlpha || byte.isDigit || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
