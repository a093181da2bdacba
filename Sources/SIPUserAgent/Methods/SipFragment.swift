public import SIPMessage

/// The status line of a `message/sipfrag` body (RFC 3420) as REFER's NOTIFYs carry it (RFC 3515 §2.4.5):
/// `SIP/2.0 200 OK`.
public struct SipFragmentStatus: Sendable, Hashable, CustomStringConvertible {
    /// 100...699.
    public var statusCode: Int
    /// The reason phrase.
    public var reasonPhrase: String

    /// - Parameters:
    ///   - statusCode: 100...699.
    ///   - reasonPhrase: the reason phrase, the standard one when `nil`.
    public init(statusCode: Int, reasonPhrase: String? = nil) {
        self.statusCode = min(max(statusCode, 100), 699)
        self.reasonPhrase = reasonPhrase ?? SIPResponse.defaultReasonPhrase(for: statusCode)
    }

    /// Parses the first line of a sipfrag body; header lines after it are ignored. `nil` unless it is a
    /// status line `SIP/2.0 ddd phrase`.
    public init?(parsing body: some Collection<UInt8>) {
        let text = String(decoding: body.prefix(1024), as: UTF8.self)
        guard let line = text.split(whereSeparator: \.isNewline).first else { return nil }
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].uppercased() == "SIP/2.0", parts[1].count == 3,
            let code = Int(parts[1]), (100...699).contains(code)
        else { return nil }
        self.statusCode = code
        self.reasonPhrase = parts.count > 2 ? String(parts[2]) : ""
    }

    /// The body: the status line and CRLF.
    public var body: [UInt8] { Array("SIP/2.0 \(statusCode) \(reasonPhrase)\r\n".utf8) }

    /// `message/sipfrag;version=2.0`.
    public static let mediaType = MediaType(
        type: "message", subtype: "sipfrag", parameters: [Parameter("version", "2.0")])

    public var description: String { "SIP/2.0 \(statusCode) \(reasonPhrase)" }
}
