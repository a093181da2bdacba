/// `a=mid:<identification-tag>` (RFC 5888 §4, RFC 9143 §7): names a media section for grouping and for the
/// MID header extension of BUNDLE.
public struct MediaID: SDPAttributeValue {
    public static let attributeName = "mid"

    /// The identification tag: an SDP token.
    public var value: String

    /// - Parameter value: the tag, an SDP token.
    public init(_ value: String) { self.value = value }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard value.isSDPToken, value.utf8.count <= 255 else {
            throw MediaID.malformed(value, "an identification tag is a token of 1 to 255 characters")
        }
        self.value = value
    }

    public var attributeValue: String { value }
}
