import SIPMessage

/// Who a call is with, as CallKit's `CXHandle` names it: a SIP URI (`generic`), a phone number (`tel:` or
/// `user=phone`) or an email-like address.
public struct Handle: Sendable, Hashable, CustomStringConvertible {
    /// What kind of value the handle holds.
    public enum HandleType: Sendable, Hashable {
        /// A SIP or SIPS URI (`sip:alice@example.com`).
        case generic
        /// A telephone number (`tel:+15551234`, or a SIP URI with `user=phone`).
        case phoneNumber
        /// `user@domain` written without a scheme.
        case emailAddress
    }

    /// What kind of value the handle holds.
    public var type: HandleType
    /// The value as the user would write it.
    public var value: String

    /// A handle of `type` holding `value`.
    public init(type: HandleType, value: String) {
        self.type = type
        self.value = value
    }

    /// A handle for a SIP URI received in signalling: `tel:` and `user=phone` URIs are phone numbers.
    init(uri: URI) {
        switch uri {
        case .tel(let tel): self.init(type: .phoneNumber, value: tel.number)
        case .sip(let sip):
            self.init(type: sip.userParameter == "phone" ? .phoneNumber : .generic, value: uri.description)
        case .other: self.init(type: .generic, value: uri.description)
        }
    }

    /// The SIP URI a call to this handle is sent to; `domain` completes numbers and bare user names.
    /// - Throws: `CallError.invalidHandle` when the value is not a usable address.
    func uri(defaultDomain domain: String?) throws(CallError) -> URI {
        let text = value.trimmingSpaces
        switch type {
        case .generic, .emailAddress:
            if text.hasPrefixIgnoringASCIICase("sip:") || text.hasPrefixIgnoringASCIICase("sips:")
                || text.hasPrefixIgnoringASCIICase("tel:")
            {
                guard let uri = try? URI(text) else { throw .invalidHandle(value) }
                return uri
            }
            let withDomain = text.contains("@") ? text : domain.map { "\(text)@\($0)" } ?? text
            guard let uri = try? URI("sip:" + withDomain) else { throw .invalidHandle(value) }
            return uri
        case .phoneNumber:
            if text.hasPrefixIgnoringASCIICase("tel:") || text.hasPrefixIgnoringASCIICase("sip") {
                guard let uri = try? URI(text) else { throw .invalidHandle(value) }
                return uri
            }
            guard let domain, let uri = try? URI("sip:\(text)@\(domain);user=phone") else {
                throw .invalidHandle(value)
            }
            return uri
        }
    }

    public var description: String { value }
}

extension String {
    /// The text without leading and trailing spaces and tabs (itself, not a copy, when it has none).
    var trimmingSpaces: String {
        guard let first = utf8.first, let last = utf8.last else { return self }
        guard first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 else { return self }
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }

    /// Whether the text starts with `prefix`, which is lowercase ASCII, in any ASCII case (what comparing
    /// `lowercased()` would say, without making the lowercased copy).
    func hasPrefixIgnoringASCIICase(_ prefix: String) -> Bool {
        var bytes = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next() else { return false }
            let lowered = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard lowered == expected else { return false }
        }
        return true
    }
}
