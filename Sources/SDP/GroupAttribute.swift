/// `a=group:<semantics> *(SP <identification-tag>)` (RFC 5888 §5): media sections that belong together, by
/// their `a=mid`; `BUNDLE` (RFC 9143 §7.1) puts them on one transport.
public struct GroupAttribute: SDPAttributeValue {
    /// A grouping semantics; grows, so the known ones are static members.
    public struct Semantics: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The name as written.
        public var rawValue: String

        /// A semantics by name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `BUNDLE` (RFC 9143).
        public static let bundle = Semantics(rawValue: "BUNDLE")
        /// `LS`, lip synchronization (RFC 5888 §7).
        public static let lipSynchronization = Semantics(rawValue: "LS")
        /// `FID`, flow identification (RFC 5888 §8).
        public static let flowIdentification = Semantics(rawValue: "FID")

        /// Compares names ignoring ASCII case.
        public func matches(_ other: Semantics) -> Bool { rawValue.equalsIgnoringASCIICase(other.rawValue) }

        public var description: String { rawValue }
    }

    public static let attributeName = "group"

    /// The semantics.
    public var semantics: Semantics
    /// The `a=mid` values of the members, in order (RFC 9143: the first is the offerer's tagged section).
    public var identificationTags: [String]

    /// - Parameters:
    ///   - semantics: the semantics.
    ///   - identificationTags: the members' tags.
    public init(semantics: Semantics, identificationTags: [String]) {
        self.semantics = semantics
        self.identificationTags = identificationTags
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), let first = fields.first, first.isSDPToken else {
            throw GroupAttribute.malformed(value, "expected <semantics> *(SP <identification-tag>)")
        }
        let tags = Array(fields.dropFirst())
        guard tags.allSatisfy({ $0.isSDPToken }) else {
            throw GroupAttribute.malformed(value, "identification tags are tokens")
        }
        guard tags.count <= 64 else { throw GroupAttribute.malformed(value, "more than 64 members") }
        self.init(semantics: Semantics(rawValue: first), identificationTags: tags)
    }

    public var attributeValue: String { ([semantics.rawValue] + identificationTags).joined(separator: " ") }
}
