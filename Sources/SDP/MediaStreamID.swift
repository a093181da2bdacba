/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2): the MediaStream a section's track belongs to, and the
/// track's application data.
public struct MediaStreamID: SDPAttributeValue {
    public static let attributeName = "msid"

    /// The stream identifier: 1 to 64 token characters (`-` for none).
    public var streamID: String
    /// The application data (the track identifier in WebRTC), when given.
    public var trackID: String?

    /// - Parameters:
    ///   - streamID: the stream identifier.
    ///   - trackID: the track identifier, if any.
    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), (1...2).contains(fields.count) else {
            throw MediaStreamID.malformed(value, "expected <stream id> [<track id>]")
        }
        guard fields.allSatisfy({ $0.isSDPToken && $0.utf8.count <= 64 }) else {
            throw MediaStreamID.malformed(value, "identifiers are 1 to 64 token characters")
        }
        self.init(streamID: fields[0], trackID: fields.count == 2 ? fields[1] : nil)
    }

    public var attributeValue: String { trackID.map { streamID + " " + $0 } ?? streamID }
}
