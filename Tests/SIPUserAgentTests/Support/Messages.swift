import SIPMessage
import Testing

/// Parses a request written with `\n` line ends (turned into CRLF).
func request(_ text: String) throws -> SIPRequest {
    try SIPRequest(parsing: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
}

/// Parses a response written with `\n` line ends.
func response(_ text: String) throws -> SIPResponse {
    try SIPResponse(parsing: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
}

func uri(_ text: String) throws -> URI { try URI(text) }

func address(_ text: String) throws -> NameAddress { try NameAddress(text) }

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
