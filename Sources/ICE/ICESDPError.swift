/// Why an ICE SDP attribute value (RFC 8839 §5) does not parse.
///
/// The codes grow over time, so match with `==` against the static members of ``Code``.
public struct ICESDPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// Longer than ``ICESDPLimits``.
        public static let tooLong = Code(raw: 1, name: "value too long")
        /// Fewer fields than the grammar needs.
        public static let missingField = Code(raw: 2, name: "missing field")
        /// The foundation is not 1 to 32 ice-chars.
        public static let badFoundation = Code(raw: 3, name: "bad foundation")
        /// The component ID is not 1 to 256.
        public static let badComponent = Code(raw: 4, name: "bad component ID")
        /// The transport is not a token.
        public static let badTransport = Code(raw: 5, name: "bad transport")
        /// The priority is not 1 to 10 digits within 32 bits.
        public static let badPriority = Code(raw: 6, name: "bad priority")
        /// The connection address is neither IPv4 nor IPv6 (FQDN and mDNS names are not resolved here).
        public static let badAddress = Code(raw: 7, name: "bad connection address")
        /// The port is not 0 to 65535.
        public static let badPort = Code(raw: 8, name: "bad port")
        /// `typ` is missing, or its value is not a token.
        public static let badType = Code(raw: 9, name: "bad candidate type")
        /// `raddr` without `rport`, or the other way round, or given twice.
        public static let badRelatedAddress = Code(raw: 10, name: "bad related address")
        /// An extension name without a value, or a name or value with forbidden characters.
        public static let badExtension = Code(raw: 11, name: "bad extension attribute")
        /// More extensions, options or remote candidates than ``ICESDPLimits`` allows.
        public static let tooMany = Code(raw: 12, name: "too many items")
        /// `ice-ufrag` is not 4 to 256 ice-chars.
        public static let badUfrag = Code(raw: 13, name: "bad ice-ufrag")
        /// `ice-pwd` is not 22 to 256 ice-chars.
        public static let badPassword = Code(raw: 14, name: "bad ice-pwd")
        /// An `ice-options` tag is not 1 or more ice-chars.
        public static let badOption = Code(raw: 15, name: "bad ice-options tag")
        /// A flag attribute (`ice-lite`, `end-of-candidates`) has a value.
        public static let unexpectedValue = Code(raw: 16, name: "flag attribute with a value")
        /// `generation` is not a non-negative decimal number.
        public static let badGeneration = Code(raw: 17, name: "bad generation")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// More detail, fit for a log line (never a password).
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.name : "\(code.name): \(detail)" }
}

/// Bounds on what the ICE SDP parsers accept.
public struct ICESDPLimits: Hashable, Sendable {
    /// The longest attribute value in bytes (default 1024).
    public var maximumValueLength: Int
    /// The most extension attributes on one candidate line (default 16).
    public var maximumExtensions: Int
    /// The most tags in `ice-options` (default 16).
    public var maximumOptions: Int
    /// The most entries in `remote-candidates` (default 16).
    public var maximumRemoteCandidates: Int

    /// - Parameters:
    ///   - maximumValueLength: the longest attribute value in bytes.
    ///   - maximumExtensions: the most extension attributes on one candidate line.
    ///   - maximumOptions: the most tags in `ice-options`.
    ///   - maximumRemoteCandidates: the most entries in `remote-candidates`.
    public init(
        maximumValueLength: Int = 1024, maximumExtensions: Int = 16, maximumOptions: Int = 16,
        maximumRemoteCandidates: Int = 16
    ) {
        self.maximumValueLength = maximumValueLength
        self.maximumExtensions = maximumExtensions
        self.maximumOptions = maximumOptions
        self.maximumRemoteCandidates = maximumRemoteCandidates
    }
}
