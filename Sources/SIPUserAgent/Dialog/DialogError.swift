import SIPMessage

/// Why a message could not create or use a dialog, with the status a UAS answers with (RFC 3261 §12, §8.2).
///
/// A struct over a private code, so that new codes do not break users.
public struct DialogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: Sendable, Hashable {
            case missingHeader
            case malformedHeader
            case missingTag
            case missingContact
            case unknownDialog
            case sequenceOutOfOrder
        }

        let value: Value

        /// A header field the dialog needs (Call-ID, From, To, CSeq) is absent.
        public static let missingHeader = Code(value: .missingHeader)
        /// A header field the dialog reads is malformed.
        public static let malformedHeader = Code(value: .malformedHeader)
        /// The response that would create a dialog has no To tag (§12.1.2).
        public static let missingTag = Code(value: .missingTag)
        /// A dialog-creating or target-refresh request has no usable Contact (§12.1.1, §8.1.1.8).
        public static let missingContact = Code(value: .missingContact)
        /// No dialog matches (§12.2.2: 481).
        public static let unknownDialog = Code(value: .unknownDialog)
        /// The remote CSeq went backwards (§12.2.2: 500).
        public static let sequenceOutOfOrder = Code(value: .sequenceOutOfOrder)

        public var description: String {
            switch value {
            case .missingHeader: "missing header"
            case .malformedHeader: "malformed header"
            case .missingTag: "missing tag"
            case .missingContact: "missing Contact"
            case .unknownDialog: "unknown dialog"
            case .sequenceOutOfOrder: "CSeq out of order"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The status a UAS answers the offending request with (400, 481, 500).
    public let status: Int
    /// A few words naming the fault, suitable for a reason phrase.
    public let detail: String

    init(_ code: Code, status: Int, _ detail: String) {
        self.code = code
        self.status = status
        self.detail = detail
    }

    public var description: String { "\(status) \(code): \(detail)" }

    static func missing(_ header: String) -> DialogError {
        DialogError(.missingHeader, status: 400, "Missing \(header)")
    }

    static func malformed(_ header: String, _ error: MessageError) -> DialogError {
        DialogError(.malformedHeader, status: 400, "Malformed \(header)")
    }
}
