extension SessionDescription {
    /// Parses a session description (RFC 8866 §5, §9). Accepts CRLF or bare LF line ends, runs of spaces or
    /// tabs between fields, blank lines, and optional lines in another order than §5's (they are written back
    /// in §5's order). Refuses what would make the description ambiguous: a missing or late v=, o= or s=, a
    /// repeated single line, session-level lines after the first m=, and media sections without an address.
    /// - Parameters:
    ///   - bytes: the body, as received.
    ///   - limits: size bounds, checked before anything is built.
    /// - Throws: `SDPError` naming the line and fault; its `status` is 400.
    public init(parsing bytes: [UInt8], limits: SDPLimits = SDPLimits()) throws(SDPError) {
        // The usual description is only scanned: its model is built when a property asks for it, and an offer
        // is answered from its bytes.
        if let wire = WireStorage.scanning(bytes, limits: limits) {
            self.init(storage: wire)
            return
        }
        try self.init(parsingModel: bytes, limits: limits)
    }

    /// Parses a description into its model at once, without keeping the bytes (what `init(parsing:limits:)`
    /// does with what the scan leaves). For checking the two paths against each other.
    package init(parsingModel bytes: [UInt8], limits: SDPLimits = SDPLimits()) throws(SDPError) {
        var parser = SDPParser(limits: limits)
        self.init(model: try parser.parse(bytes))
    }

    /// The same description held as a model (built now when it was kept as bytes): offers and answers made from
    /// it take the model path. For checking the two paths against each other.
    package var withModel: SessionDescription { SessionDescription(model: modelStorage.model) }

    /// Whether the description is kept as the bytes it was read from or written to.
    package var isKeptAsBytes: Bool { wire != nil }

    /// Whether a description kept as bytes has built its model yet (a read of a typed property builds it). For
    /// checking that the bytes paths read the bytes alone.
    package var hasBuiltModel: Bool { wire?.hasBuiltModel ?? true }

    /// Parses a session description from text (see `init(parsing:limits:)` for bytes).
    public init(parsing text: String, limits: SDPLimits = SDPLimits()) throws(SDPError) {
        try self.init(parsing: Array(text.utf8), limits: limits)
    }
}

/// The line-by-line parser behind `SessionDescription(parsing:)`.
struct SDPParser {
    let limits: SDPLimits

    private var hasVersion = false
    private var origin: Origin?
    private var sessionName: String?
    private var session = SessionDescription.Model(origin: Origin(sessionID: "0", sessionVersion: 0, address: "-"))
    /// Type letters seen in the current section, for duplicate checks: bit `letter - "a"`.
    private var seen: UInt32 = 0
    /// The type letter of the last known line in the current section (where unknown lines are anchored).
    private var lastKnown: Character = "v"
    private var mediaLineNumbers: [Int] = []
    private var lineNumber = 0

    init(limits: SDPLimits) {
        self.limits = limits
        session.timing = []
    }

    mutating func parse(_ bytes: [UInt8]) throws(SDPError) -> SessionDescription.Model {
        guard bytes.count <= limits.maximumSize else {
            throw SDPError(.descriptionTooLarge, "\(bytes.count) bytes, at most \(limits.maximumSize) accepted")
        }
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            guard lineNumber <= limits.maximumLines else {
                throw SDPError(.tooManyLines, "at most \(limits.maximumLines) lines accepted", lineNumber: lineNumber)
            }
            var stop = start
            while stop < bytes.count, bytes[stop] != ASCII.lf { stop += 1 }
            let lineStart = start
            start = stop + 1
            let contentEnd = stop > lineStart && bytes[stop - 1] == ASCII.cr ? stop - 1 : stop
            if contentEnd == lineStart { continue }
            // The line as errors quote it (its first 100 bytes).
            var text: String { String(bytes: bytes, range: lineStart..<min(contentEnd, lineStart + 100)) }
            guard contentEnd - lineStart <= limits.maximumLineLength else {
                throw SDPError(
                    .lineTooLong, "at most \(limits.maximumLineLength) bytes per line accepted", line: text,
                    lineNumber: lineNumber)
            }
            if bytes[lineStart..<contentEnd].contains(where: { $0 == ASCII.nul || $0 == ASCII.cr }) {
                throw SDPError(.invalidCharacter, "NUL or CR inside a line", line: text, lineNumber: lineNumber)
            }
            guard contentEnd - lineStart >= 2, bytes[lineStart].isLowercaseLetter, bytes[lineStart + 1] == ASCII.equals
            else {
                throw SDPError(.malformedLine, "expected <type>=<value>", line: text, lineNumber: lineNumber)
            }
            do {
                try handle(bytes[lineStart], Line(bytes: bytes, range: (lineStart + 2)..<contentEnd))
            } catch {
                throw error.at(lineNumber: lineNumber, line: text)
            }
        }
        return try finish()
    }

    /// The value of one line (after `<type>=`), as bytes of the description; made a `String` when needed.
    private struct Line {
        var bytes: [UInt8]
        var range: Range<Int>

        var text: String { String(bytes: bytes, range: range) }
        var fields: [String]? { splitFields(bytes, range) }
    }

    private mutating func handle(_ type: UInt8, _ value: Line) throws(SDPError) {
        guard hasVersion || type == UInt8(ascii: "v") else {
            throw SDPError(.missingLine, "v= must be the first line")
        }
        if session.media.isEmpty {
            try handleSession(type, value)
        } else {
            try handleMedia(type, value)
        }
    }

    /// Marks a single-instance line as seen; throws when it was seen before in this section.
    private mutating func once(_ type: UInt8) throws(SDPError) {
        let bit = UInt32(1) << UInt32((type &- UInt8(ascii: "a")) & 31)
        defer { seen |= bit }
        guard seen & bit == 0 else {
            throw SDPError(.duplicateLine, "\(Character(Unicode.Scalar(type)))= may appear once per section")
        }
    }

    private mutating func handleSession(_ type: UInt8, _ value: Line) throws(SDPError) {
        switch UnicodeScalar(type) {
        case "v":
            try once(type)
            guard value.range.count == 1, value.bytes[value.range.lowerBound] == UInt8(ascii: "0") else {
                throw SDPError(.unsupportedVersion, "only v=0 is defined")
            }
            hasVersion = true
        case "o":
            try once(type)
            origin = try Origin(fields: value.fields, value: value.text)
        case "s":
            try once(type)
            sessionName = value.text
        case "i":
            try once(type)
            session.information = value.text
        case "u":
            try once(type)
            session.uri = value.text
        case "e": session.emails.append(value.text)
        case "p": session.phones.append(value.text)
        case "c":
            try once(type)
            session.connection = try Connection(fields: value.fields, value: value.text)
        case "b": session.bandwidths.append(try Bandwidth(parsing: value.text))
        case "t": session.timing.append(try Timing(fields: value.fields, value: value.text))
        case "r":
            guard !session.timing.isEmpty else { throw SDPError(.misplacedLine, "r= before any t=") }
            let repeatValue = try Timing.normalizedRepeat(value.text)
            session.timing[session.timing.count - 1].repeats.append(repeatValue)
            lastKnown = "t"
            return
        case "z":
            try once(type)
            session.timeZones = try Timing.normalizedTimeZones(value.text)
        case "k":
            try once(type)
            session.key = value.text
        case "a": session.attributes.append(try Attribute(parsing: value.bytes, value.range))
        case "m":
            try startMedia(value)
            return
        default:
            SDPParser.insert(unknownLine(type, value.text), into: &session.unknownLines, order: SDPParser.sessionOrder)
            return
        }
        lastKnown = Character(Unicode.Scalar(type))
    }

    /// The order in which the serializer writes the line groups of each section (RFC 8866 §5).
    private static let sessionOrder: [Character] = ["v", "o", "s", "i", "u", "e", "p", "c", "b", "t", "z", "k", "a"]
    private static let mediaOrder: [Character] = ["m", "i", "c", "b", "k", "a"]

    /// Keeps unknown lines in the order they are written back in (by the group they follow, then as received),
    /// so that parsing what was written gives an equal description even when the input's lines were out of
    /// order.
    private static func insert(_ line: UnknownLine, into lines: inout [UnknownLine], order: [Character]) {
        let rank = order.firstIndex(of: line.follows) ?? order.count
        let index = lines.firstIndex { (order.firstIndex(of: $0.follows) ?? order.count) > rank } ?? lines.count
        lines.insert(line, at: index)
    }

    private mutating func startMedia(_ value: Line) throws(SDPError) {
        guard session.media.count < limits.maximumMediaDescriptions else {
            throw SDPError(.tooManyMediaDescriptions, "at most \(limits.maximumMediaDescriptions) m= lines accepted")
        }
        session.media.append(try MediaDescription(mediaLineFields: value.fields, value: value.text))
        mediaLineNumbers.append(lineNumber)
        seen = 0
        lastKnown = "m"
    }

    private mutating func handleMedia(_ type: UInt8, _ value: Line) throws(SDPError) {
        let index = session.media.count - 1
        switch UnicodeScalar(type) {
        case "m":
            try startMedia(value)
            return
        case "i":
            try once(type)
            session.media[index].information = value.text
        case "c": session.media[index].connections.append(try Connection(fields: value.fields, value: value.text))
        case "b": session.media[index].bandwidths.append(try Bandwidth(parsing: value.text))
        case "k":
            try once(type)
            session.media[index].key = value.text
        case "a": session.media[index].attributes.append(try Attribute(parsing: value.bytes, value.range))
        case "v", "o", "s", "u", "e", "p", "t", "r", "z":
            throw SDPError(.misplacedLine, "a session-level line inside a media section")
        default:
            SDPParser.insert(
                unknownLine(type, value.text), into: &session.media[index].unknownLines, order: SDPParser.mediaOrder)
            return
        }
        lastKnown = Character(Unicode.Scalar(type))
    }

    private func unknownLine(_ type: UInt8, _ value: String) -> UnknownLine {
        UnknownLine(type: Character(Unicode.Scalar(type)), value: value, follows: lastKnown)
    }

    private mutating func finish() throws(SDPError) -> SessionDescription.Model {
        guard hasVersion else { throw SDPError(.missingLine, "v= must be the first line") }
        guard let origin else { throw SDPError(.missingLine, "no o= line") }
        guard let sessionName else { throw SDPError(.missingLine, "no s= line") }
        session.origin = origin
        session.sessionName = sessionName
        if session.connection == nil {
            for (index, media) in session.media.enumerated() where media.connections.isEmpty && media.port != 0 {
                let number = mediaLineNumbers.indices.contains(index) ? mediaLineNumbers[index] : nil
                throw SDPError(
                    .missingConnection, "media section without c= and no session-level c=", line: media.mediaLine,
                    lineNumber: number)
            }
        }
        return session
    }
}
