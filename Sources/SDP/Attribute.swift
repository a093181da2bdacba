/// An a= line (RFC 8866 §5.13): a property attribute (`a=rtcp-mux`) or a value attribute
/// (`a=rtpmap:0 PCMU/8000`). The raw name and value are the truth; typed views parse them when asked, and an
/// attribute the stack does not know is kept and written back as it came.
public struct Attribute: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name (`att-field`), as written.
    public var name: String
    /// The value after the colon; `nil` for a property attribute. An empty value (`a=x:`) is kept as "".
    public var value: String?

    /// - Parameters:
    ///   - name: the attribute name.
    ///   - value: the value, or `nil` for a property attribute.
    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// An attribute holding a typed value: `Attribute(RTPMap(...))`.
    public init(_ typed: some SDPAttributeValue) {
        self.name = type(of: typed).attributeName
        self.value = typed.attributeValue
    }

    /// Parses the value of an a= line: `<attribute>` or `<attribute>:<value>`.
    public init(parsing text: String) throws(SDPError) {
        let bytes = Array(text.utf8)
        try self.init(parsing: bytes, 0..<bytes.count)
    }

    /// Parses the value of an a= line held in `bytes[range]`.
    init(parsing bytes: [UInt8], _ range: Range<Int>) throws(SDPError) {
        var scanner = SDPScanner(bytes, range)
        guard let name = scanner.readToken(), scanner.isAtEnd || scanner.peek() == ASCII.colon else {
            throw SDPError(.malformedAttribute, "attribute name is not a token", line: "a=" + scanner.string(range))
        }
        self.name = name
        self.value = scanner.consume(ASCII.colon) ? scanner.readRest() : nil
    }

    /// True when the attribute is called `name` (compared ignoring ASCII case).
    public func hasName(_ name: String) -> Bool { self.name.equalsIgnoringASCIICase(name) }

    /// The typed value, or `nil` when this attribute has another name.
    /// - Throws: `SDPError` with code `malformedAttribute` when the name matches and the value does not parse.
    public func typedValue<T: SDPAttributeValue>(_ type: T.Type) throws(SDPError) -> T? {
        guard hasName(T.attributeName) else { return nil }
        return try T(parsingAttributeValue: value ?? "")
    }

    /// The line as written, without the line end: `a=rtcp-mux`.
    public var description: String {
        guard let value else { return "a=" + name }
        return "a=" + name + ":" + value
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append("a=")
        buffer.appendToken(name)
        if let value {
            buffer.append(ASCII.colon)
            buffer.appendText(value)
        }
        buffer.appendLineEnd()
    }
}

/// The value of a known attribute that parses and writes itself: rtpmap, fmtp, crypto, rtcp, ssrc, ...
public protocol SDPAttributeValue: Sendable, Hashable {
    /// The attribute name, e.g. `rtpmap`.
    static var attributeName: String { get }
    /// Parses the text after `a=<name>:`.
    init(parsingAttributeValue value: String) throws(SDPError)
    /// The text after `a=<name>:`, as written.
    var attributeValue: String { get }
}

extension SDPAttributeValue {
    /// The error for a malformed value of this attribute, naming the line.
    static func malformed(_ value: String, _ detail: String) -> SDPError {
        SDPError(.malformedAttribute, "\(attributeName): \(detail)", line: "a=\(attributeName):\(value)")
    }
}

/// A line of a type this parser does not know (RFC 8866 §5 allows none, but we keep what comes), with the
/// known line it followed so that it is written back in the same place.
public struct UnknownLine: Sendable, Hashable {
    /// The type letter, `a`...`z`.
    public var type: Character
    /// The text after `=`.
    public var value: String
    /// The type letter of the known line it came after (`v`, `o`, ..., `m` for a media section's first line).
    public var follows: Character

    /// - Parameters:
    ///   - type: the type letter (a lower-case ASCII letter; other types are not written).
    ///   - value: the text after `=`.
    ///   - follows: the type letter of the known line to write it after.
    public init(type: Character, value: String, follows: Character) {
        self.type = type
        self.value = value
        self.follows = follows
    }

    func serialize(into buffer: inout [UInt8]) {
        guard let letter = type.asciiValue, letter.isLowercaseLetter else { return }
        buffer.append(letter)
        buffer.append(ASCII.equals)
        buffer.appendText(value)
        buffer.appendLineEnd()
    }
}

extension Array where Element == UnknownLine {
    func serialize(following letter: Character, into buffer: inout [UInt8]) {
        for line in self where line.follows == letter { line.serialize(into: &buffer) }
    }
}
