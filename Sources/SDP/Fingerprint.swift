/// `a=fingerprint:<hash function> <hex pairs separated by colons>` (RFC 8122 §5): the certificate
/// fingerprint a DTLS-SRTP peer will present (RFC 5763). Parsed now; DTLS-SRTP comes later.
public struct Fingerprint: SDPAttributeValue {
    public static let attributeName = "fingerprint"

    /// The hash function, as written (`sha-256`, `SHA-1`, ...); compare ignoring case.
    public var hashFunction: String
    /// The fingerprint bytes.
    public var bytes: [UInt8]

    /// - Parameters:
    ///   - hashFunction: the hash function name.
    ///   - bytes: the digest.
    public init(hashFunction: String, bytes: [UInt8]) {
        self.hashFunction = hashFunction
        self.bytes = bytes
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), fields.count == 2, fields[0].isSDPToken else {
            throw Fingerprint.malformed(value, "expected <hash function> <fingerprint>")
        }
        var bytes: [UInt8] = []
        let hex = Array(fields[1].utf8)
        var i = 0
        while i < hex.count {
            // 2HEX *(":" 2HEX)
            guard i + 1 < hex.count, let high = hex[i].hexValue, let low = hex[i + 1].hexValue else {
                throw Fingerprint.malformed(value, "fingerprint is not pairs of hex digits")
            }
            bytes.append(high << 4 | low)
            i += 2
            if i < hex.count {
                guard hex[i] == ASCII.colon, i + 1 < hex.count else {
                    throw Fingerprint.malformed(value, "hex pairs must be separated by colons")
                }
                i += 1
            }
        }
        guard !bytes.isEmpty else { throw Fingerprint.malformed(value, "empty fingerprint") }
        self.hashFunction = fields[0]
        self.bytes = bytes
    }

    /// Upper-case hex pairs joined by colons, as RFC 8122 §5 writes them.
    public var attributeValue: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for (i, b) in bytes.enumerated() {
            if i > 0 { out.append(ASCII.colon) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return hashFunction + " " + String(decoding: out, as: UTF8.self)
    }
}
