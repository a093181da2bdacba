/// A session description (RFC 8866 §5): the session-level lines and the media sections, a value.
///
/// Parse one with `init(parsing:)`, write it with `serialized()`: lines come out in the order RFC 8866 §5
/// requires, with CRLF line ends; unknown attributes and lines of unknown type are written back where they
/// were. `v=` is always `0` (other versions are refused when parsing).
public struct SessionDescription: Sendable, Hashable, SDPAttributeContainer, CustomStringConvertible {
    /// The o= line.
    public var origin: Origin
    /// The s= line; `-` when the session has no name.
    public var sessionName: String
    /// The i= line.
    public var information: String?
    /// The u= line.
    public var uri: String?
    /// The e= lines.
    public var emails: [String]
    /// The p= lines.
    public var phones: [String]
    /// The session-level c= line.
    public var connection: Connection?
    /// The session-level b= lines.
    public var bandwidths: [Bandwidth]
    /// The t= lines with their r= lines; SIP uses one `t=0 0`.
    public var timing: [Timing]
    /// The z= line, with single spaces.
    public var timeZones: String?
    /// The session-level k= line (obsolete; kept as written).
    public var key: String?
    /// The session-level a= lines.
    public var attributes: [Attribute]
    /// The media sections, in order.
    public var media: [MediaDescription]
    /// Session-level lines of unknown type.
    public var unknownLines: [UnknownLine]

    /// A description with `t=0 0` and no media.
    /// - Parameters:
    ///   - origin: the o= line.
    ///   - sessionName: the s= line, `-` by default.
    ///   - connection: the session-level c= line.
    ///   - media: the media sections.
    public init(
        origin: Origin, sessionName: String = "-", connection: Connection? = nil, media: [MediaDescription] = []
    ) {
        self.origin = origin
        self.sessionName = sessionName
        self.information = nil
        self.uri = nil
        self.emails = []
        self.phones = []
        self.connection = connection
        self.bandwidths = []
        self.timing = [Timing()]
        self.timeZones = nil
        self.key = nil
        self.attributes = []
        self.media = media
        self.unknownLines = []
    }

    /// The c= line that applies to `media[index]`: its own first one, else the session-level one.
    public func connection(forMediaAt index: Int) -> Connection? {
        guard media.indices.contains(index) else { return connection }
        return media[index].connections.first ?? connection
    }

    /// The direction of `media[index]`: its own attribute, else the session-level one, else `sendrecv`
    /// (RFC 8866 §6.7).
    public func direction(forMediaAt index: Int) -> MediaDirection {
        guard media.indices.contains(index) else { return direction ?? .sendrecv }
        return media[index].direction ?? direction ?? .sendrecv
    }

    /// The wire form: CRLF line ends, lines in RFC 8866 §5 order.
    public func serialized() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512 + 256 * media.count)
        serialize(into: &buffer)
        // The bytes usually stay with a message (a 2xx kept for its retransmissions, 32 s): at their own size,
        // not the capacity reserved above.
        guard buffer.capacity - buffer.count > 128 else { return buffer }
        // A fresh array (`Array(buffer[...])` may hand back the same storage, capacity and all).
        return [UInt8](unsafeUninitializedCapacity: buffer.count) { target, count in
            count = target.initialize(fromContentsOf: buffer)
        }
    }

    /// Appends the wire form to `buffer`.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append("v=0")
        buffer.appendLineEnd()
        unknownLines.serialize(following: "v", into: &buffer)
        origin.serialize(into: &buffer)
        unknownLines.serialize(following: "o", into: &buffer)
        buffer.appendLine("s", sessionName)
        unknownLines.serialize(following: "s", into: &buffer)
        if let information { buffer.appendLine("i", information) }
        unknownLines.serialize(following: "i", into: &buffer)
        if let uri { buffer.appendLine("u", uri) }
        unknownLines.serialize(following: "u", into: &buffer)
        for email in emails { buffer.appendLine("e", email) }
        unknownLines.serialize(following: "e", into: &buffer)
        for phone in phones { buffer.appendLine("p", phone) }
        unknownLines.serialize(following: "p", into: &buffer)
        connection?.serialize(into: &buffer)
        unknownLines.serialize(following: "c", into: &buffer)
        for bandwidth in bandwidths { bandwidth.serialize(into: &buffer) }
        unknownLines.serialize(following: "b", into: &buffer)
        for time in timing { time.serialize(into: &buffer) }
        unknownLines.serialize(following: "t", into: &buffer)
        if let timeZones { buffer.appendLine("z", timeZones) }
        unknownLines.serialize(following: "z", into: &buffer)
        if let key { buffer.appendLine("k", key) }
        unknownLines.serialize(following: "k", into: &buffer)
        for attribute in attributes { attribute.serialize(into: &buffer) }
        unknownLines.serialize(following: "a", into: &buffer)
        for section in media { section.serialize(into: &buffer) }
    }

    /// The wire form as text.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}

extension Array where Element == UInt8 {
    mutating func appendLine(_ type: Unicode.Scalar, _ text: String) {
        append(UInt8(ascii: type))
        append(ASCII.equals)
        appendText(text)
        appendLineEnd()
    }
}
