/// A session description (RFC 8866 §5): the session-level lines and the media sections, a value.
///
/// Parse one with `init(parsing:)`, write it with `serialized()`: lines come out in the order RFC 8866 §5
/// requires, with CRLF line ends; unknown attributes and lines of unknown type are written back where they
/// were. `v=` is always `0` (other versions are refused when parsing).
public struct SessionDescription: Sendable, Hashable, SDPAttributeContainer, CustomStringConvertible {
    /// The lines (see `SessionDescription+Storage.swift`).
    var storage: DescriptionStorage

    /// The o= line.
    public var origin: Origin {
        get { read { $0.origin } }
        _modify { yield &uniqueModel.model.origin }
    }
    /// The s= line; `-` when the session has no name.
    public var sessionName: String {
        get { read { $0.sessionName } }
        _modify { yield &uniqueModel.model.sessionName }
    }
    /// The i= line.
    public var information: String? {
        get { read { $0.information } }
        _modify { yield &uniqueModel.model.information }
    }
    /// The u= line.
    public var uri: String? {
        get { read { $0.uri } }
        _modify { yield &uniqueModel.model.uri }
    }
    /// The e= lines.
    public var emails: [String] {
        get { read { $0.emails } }
        _modify { yield &uniqueModel.model.emails }
    }
    /// The p= lines.
    public var phones: [String] {
        get { read { $0.phones } }
        _modify { yield &uniqueModel.model.phones }
    }
    /// The session-level c= line.
    public var connection: Connection? {
        get { read { $0.connection } }
        _modify { yield &uniqueModel.model.connection }
    }
    /// The session-level b= lines.
    public var bandwidths: [Bandwidth] {
        get { read { $0.bandwidths } }
        _modify { yield &uniqueModel.model.bandwidths }
    }
    /// The t= lines with their r= lines; SIP uses one `t=0 0`.
    public var timing: [Timing] {
        get { read { $0.timing } }
        _modify { yield &uniqueModel.model.timing }
    }
    /// The z= line, with single spaces.
    public var timeZones: String? {
        get { read { $0.timeZones } }
        _modify { yield &uniqueModel.model.timeZones }
    }
    /// The session-level k= line (obsolete; kept as written).
    public var key: String? {
        get { read { $0.key } }
        _modify { yield &uniqueModel.model.key }
    }
    /// The session-level a= lines.
    public var attributes: [Attribute] {
        get { read { $0.attributes } }
        _modify { yield &uniqueModel.model.attributes }
    }
    /// The media sections, in order.
    public var media: [MediaDescription] {
        get { read { $0.media } }
        _modify { yield &uniqueModel.model.media }
    }
    /// Session-level lines of unknown type.
    public var unknownLines: [UnknownLine] {
        get { read { $0.unknownLines } }
        _modify { yield &uniqueModel.model.unknownLines }
    }

    /// A description with `t=0 0` and no media.
    /// - Parameters:
    ///   - origin: the o= line.
    ///   - sessionName: the s= line, `-` by default.
    ///   - connection: the session-level c= line.
    ///   - media: the media sections.
    public init(
        origin: Origin, sessionName: String = "-", connection: Connection? = nil, media: [MediaDescription] = []
    ) {
        var model = Model(origin: origin)
        model.sessionName = sessionName
        model.connection = connection
        model.media = media
        storage = ModelStorage(model)
    }

    init(model: Model) {
        storage = ModelStorage(model)
    }

    /// The c= line that applies to `media[index]`: its own first one, else the session-level one.
    public func connection(forMediaAt index: Int) -> Connection? {
        read { model in
            guard model.media.indices.contains(index) else { return model.connection }
            return model.media[index].connections.first ?? model.connection
        }
    }

    /// The direction of `media[index]`: its own attribute, else the session-level one, else `sendrecv`
    /// (RFC 8866 §6.7).
    public func direction(forMediaAt index: Int) -> MediaDirection {
        read { model in
            let session = model.attributes.direction
            guard model.media.indices.contains(index) else { return session ?? .sendrecv }
            return model.media[index].attributes.direction ?? session ?? .sendrecv
        }
    }

    /// The wire form: CRLF line ends, lines in RFC 8866 §5 order.
    public func serialized() -> [UInt8] {
        if let wire, wire.isCanonical { return wire.bytes }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512 + 256 * read { $0.media.count })
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
        if let wire, wire.isCanonical {
            buffer.append(contentsOf: wire.bytes)
            return
        }
        read { $0.serialize(into: &buffer) }
    }

    /// The wire form as text.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}

extension SessionDescription.Model {
    func serialize(into buffer: inout [UInt8]) {
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
}

extension Array where Element == UInt8 {
    mutating func appendLine(_ type: Unicode.Scalar, _ text: String) {
        append(UInt8(ascii: type))
        append(ASCII.equals)
        appendText(text)
        appendLineEnd()
    }
}
