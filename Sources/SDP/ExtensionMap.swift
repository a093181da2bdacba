/// `a=extmap:<value>["/"<direction>] <URI> [<extension attributes>]` (RFC 8285 §8): maps an RTP header
/// extension, named by URI, to the local identifier its packets carry.
public struct ExtensionMap: SDPAttributeValue {
    public static let attributeName = "extmap"

    /// The MID extension of BUNDLE (RFC 9143 §14.1).
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// The client-to-mixer audio level (RFC 6464).
    public static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

    /// The identifier: 1...14 fit the one-byte form, 1...255 the two-byte form (RFC 8285 §4); 4096...4351 are
    /// the values an offer may leave for the answer to choose (§8).
    public var identifier: UInt16
    /// The direction, when given.
    public var direction: MediaDirection?
    /// The extension's URI.
    public var uri: String
    /// The extension attributes, as written (e.g. `vad=on`).
    public var extensionAttributes: String?

    /// - Parameters:
    ///   - identifier: the local identifier.
    ///   - direction: the direction, none by default.
    ///   - uri: the extension's URI.
    ///   - extensionAttributes: its attributes, none by default.
    public init(identifier: UInt16, direction: MediaDirection? = nil, uri: String, extensionAttributes: String? = nil) {
        self.identifier = identifier
        self.direction = direction
        self.uri = uri
        self.extensionAttributes = extensionAttributes
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), fields.count >= 2 else {
            throw ExtensionMap.malformed(value, "expected <value>[/<direction>] <URI> [<attributes>]")
        }
        let head = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let number = parseDecimal(String(head[0]), limit: 4351), head[0].utf8.count <= 4,
            (1...255).contains(number) || (4096...4351).contains(number)
        else { throw ExtensionMap.malformed(value, "the identifier is not 1...255 (or 4096...4351)") }
        var direction: MediaDirection?
        if head.count == 2 {
            guard let parsed = MediaDirection(attributeName: String(head[1])) else {
                throw ExtensionMap.malformed(value, "\(head[1]) is not a direction")
            }
            direction = parsed
        }
        guard fields[1].contains(":") else { throw ExtensionMap.malformed(value, "the extension name is not a URI") }
        let rest = fields.dropFirst(2).joined(separator: " ")
        self.init(
            identifier: UInt16(number), direction: direction, uri: fields[1],
            extensionAttributes: rest.isEmpty ? nil : rest)
    }

    public var attributeValue: String {
        var text = "\(identifier)"
        if let direction { text += "/" + direction.rawValue }
        text += " " + uri
        if let extensionAttributes { text += " " + extensionAttributes }
        return text
    }
}
