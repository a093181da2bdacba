// The scan behind `SessionDescription(parsing:)`: it checks a description line by line as `SDPParser` does and
// keeps where each line is, building nothing else. It takes the lines a SIP call's SDP is made of (v o s i u e p
// c b t m a, c= without multicast suffixes) and leaves anything else, faults included, to `SDPParser`: whatever
// the scan accepts, `SDPParser` accepts too, and the model is then `SDPParser`'s, built when first asked for.

extension WireStorage {
    /// The scanned description, or `nil` when `SDPParser` must read it (a line the scan does not take, or a
    /// fault, which `SDPParser` then reports).
    static func scanning(_ bytes: [UInt8], limits: SDPLimits) -> WireStorage? {
        guard bytes.count <= limits.maximumSize, bytes.count < Int(UInt32.max) else { return nil }
        // The lines are gathered on the stack (a call's SDP has a few dozen at most), then copied once into an
        // array of their exact count: no array grown line by line, no capacity left unused while the offer is kept.
        return withUnsafeTemporaryAllocation(of: Line.self, capacity: LineSink.stackLines) { scratch in
            var scan = WireScan(limits: limits, lines: LineSink(scratch: scratch))
            let scanned = bytes.withUnsafeBufferPointer { scan.run($0) }
            guard scanned else { return nil }
            return WireStorage(scanned: bytes, lines: scan.lines.finish(), isASCII: scan.isASCII, limits: limits)
        }
    }
}

/// Where a scan puts the lines it finds: the caller's scratch space while they fit, an array of its own beyond.
struct LineSink {
    /// The lines kept on the stack before the sink moves to an array.
    static let stackLines = 64

    private let scratch: UnsafeMutableBufferPointer<WireStorage.Line>
    private var count = 0
    /// Every line so far, once there were more than `scratch` holds.
    private var spilled: [WireStorage.Line]?

    /// A sink that starts in `scratch` (the caller's, which must outlive it; `Line` is trivial, so nothing in it
    /// needs deinitializing).
    init(scratch: UnsafeMutableBufferPointer<WireStorage.Line>) {
        self.scratch = scratch
    }

    @inline(__always)
    mutating func append(_ line: WireStorage.Line) {
        if spilled == nil, count < scratch.count {
            scratch.initializeElement(at: count, to: line)
            count += 1
            return
        }
        spill()
        spilled?.append(line)
    }

    /// Moves the lines in `scratch` to an array, once.
    private mutating func spill() {
        guard spilled == nil else { return }
        var lines: [WireStorage.Line] = []
        lines.reserveCapacity(Swift.max(16, count * 2))
        lines.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
        spilled = lines
    }

    /// The lines, in an array of their own.
    func finish() -> [WireStorage.Line] {
        if let spilled { return spilled }
        return [WireStorage.Line](UnsafeBufferPointer(rebasing: scratch[..<count]))
    }
}

/// The state of one scan: what `SDPParser` tracks to refuse a description, and the lines found.
private struct WireScan {
    let limits: SDPLimits
    var lines: LineSink
    var isASCII = true
    private var hasVersion = false
    private var hasOrigin = false
    private var hasSessionName = false
    /// Type letters seen in the current section: bit `letter - "a"`.
    private var seen: UInt32 = 0
    private var mediaCount = 0
    private var hasSessionConnection = false
    /// The current media section has a port other than 0 and no c= line yet.
    private var sectionNeedsConnection = false
    /// What the a= line just taken is, and the length of its name.
    private var attributeKind = AttributeKind.other
    private var attributeNameLength: UInt16 = 0

    init(limits: SDPLimits, lines: LineSink) {
        self.limits = limits
        self.lines = lines
    }

    /// Scans every line; false when `SDPParser` must read the description.
    mutating func run(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        // `p.count` is below `UInt32.max` (see `scanning`), so no index below can overflow: `&+` and `&-` say so.
        let count = p.count
        let raw = UnsafeRawBufferPointer(p)
        let maximumLines = limits.maximumLines
        let maximumLineLength = limits.maximumLineLength
        var start = 0
        var lineNumber = 0
        while start < count {
            lineNumber &+= 1
            guard lineNumber <= maximumLines else { return false }
            // To the line end, refusing a NUL or a lone CR (as `SDPParser` does, by way of the line checks) and
            // noting bytes above 0x7F: eight bytes at a time while none of them is below 0x0E (LF, CR and NUL
            // are) or above 0x7F.
            var stop = start
            var contentEnd = count
            while true {
                if stop &+ 8 <= count {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: stop, as: UInt64.self))
                    let high: UInt64 = 0x8080_8080_8080_8080
                    let special = ((word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word | word) & high
                    if special == 0 {
                        stop &+= 8
                        continue
                    }
                    // The lowest flag marks the first such byte exactly (a borrow only runs upwards): go to it.
                    stop &+= special.trailingZeroBitCount &>> 3
                } else if stop >= count {
                    // The last line has no LF; a CR ending it is its line end.
                    if stop > start, p[stop &- 1] == ASCII.cr { contentEnd = stop &- 1 }
                    break
                }
                let b = p[stop]
                if b &- 0x0E < 0x72 {
                    stop &+= 1
                    continue
                }
                if b == ASCII.lf {
                    // A CR before this LF would have ended the line already.
                    contentEnd = stop
                    break
                }
                if b == ASCII.cr {
                    let next = stop &+ 1
                    if next < count {
                        // The usual line end: the LF right after the CR.
                        guard p[next] == ASCII.lf else { return false }
                        contentEnd = stop
                        stop = next
                        break
                    }
                    stop = next
                    continue
                }
                guard b != ASCII.nul else { return false }
                if b >= 0x80 { isASCII = false }
                stop &+= 1
            }
            let lineStart = start
            start = stop &+ 1
            let length = contentEnd &- lineStart
            if length == 0 { continue }
            guard length <= maximumLineLength, length >= 2, p[lineStart].isLowercaseLetter,
                p[lineStart &+ 1] == ASCII.equals
            else { return false }
            let type = p[lineStart]
            let value = Range(uncheckedBounds: (lineStart &+ 2, contentEnd))
            attributeKind = .other
            attributeNameLength = 0
            guard hasVersion || type == UInt8(ascii: "v"), take(type, value, p) else { return false }
            lines.append(
                WireStorage.Line(
                    type: type, kind: attributeKind, nameLength: attributeNameLength,
                    start: UInt32(truncatingIfNeeded: value.lowerBound),
                    end: UInt32(truncatingIfNeeded: value.upperBound)))
        }
        return hasVersion && hasOrigin && hasSessionName && !sectionNeedsConnection
    }

    /// Checks one line as `SDPParser.handleSession` or `handleMedia` would; false for a fault or a line the scan
    /// does not take.
    private mutating func take(_ type: UInt8, _ value: Range<Int>, _ p: UnsafeBufferPointer<UInt8>) -> Bool {
        if mediaCount == 0 {
            switch UnicodeScalar(type) {
            case "v":
                guard once(type), value.count == 1, p[value.lowerBound] == ASCII.zero else { return false }
                hasVersion = true
            case "o":
                guard once(type), Self.isOrigin(p, value) else { return false }
                hasOrigin = true
            case "s":
                guard once(type) else { return false }
                hasSessionName = true
            case "i", "u": return once(type)
            case "e", "p": return true
            case "c":
                guard once(type), Self.isConnection(p, value) else { return false }
                hasSessionConnection = true
            case "b": return Self.isBandwidth(p, value)
            case "t": return Self.isTiming(p, value)
            case "a": return attribute(p, value)
            case "m": return startMedia(p, value)
            default: return false
            }
            return true
        }
        switch UnicodeScalar(type) {
        case "m":
            guard !sectionNeedsConnection else { return false }
            return startMedia(p, value)
        case "i": return once(type)
        case "c":
            sectionNeedsConnection = false
            return Self.isConnection(p, value)
        case "b": return Self.isBandwidth(p, value)
        case "a": return attribute(p, value)
        default: return false
        }
    }

    /// Marks a single-instance line as seen; false when it was seen before in this section.
    private mutating func once(_ type: UInt8) -> Bool {
        let bit = UInt32(1) << UInt32((type &- UInt8(ascii: "a")) & 31)
        defer { seen |= bit }
        return seen & bit == 0
    }

    private mutating func startMedia(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        guard mediaCount < limits.maximumMediaDescriptions, let port = Self.mediaPort(p, value) else { return false }
        mediaCount += 1
        seen = 0
        sectionNeedsConnection = port != 0 && !hasSessionConnection
        return true
    }

    /// `<username> <sess-id> <sess-version> <nettype> <addrtype> <address>`, the version a number.
    private static func isOrigin(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        var fields = FieldCursor(p, value)
        var count = 0
        while let field = fields.next() {
            count += 1
            if count == 3, p.decimal(field) == nil { return false }
        }
        return fields.isValid && count == 6
    }

    /// `<nettype> <addrtype> <address>` with a unicast address (multicast suffixes are left to `SDPParser`).
    private static func isConnection(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        var fields = FieldCursor(p, value)
        var count = 0
        while let field = fields.next() {
            count += 1
            if count == 3, p.firstIndex(of: ASCII.slash, in: field) != field.upperBound { return false }
        }
        return fields.isValid && count == 3
    }

    /// `<start-time> <stop-time>`, both numbers.
    private static func isTiming(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        var fields = FieldCursor(p, value)
        var count = 0
        while let field = fields.next() {
            count += 1
            if p.decimal(field) == nil { return false }
        }
        return fields.isValid && count == 2
    }

    /// `<token>:<number>`.
    private static func isBandwidth(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        let i = p.end(of: value, while: { $0.isTokenChar })
        guard i > value.lowerBound, i < value.upperBound, p[i] == ASCII.colon else { return false }
        return p.decimal((i + 1)..<value.upperBound) != nil
    }

    /// `<token>` or `<token>:<anything>`; notes what attribute it is for the line.
    private mutating func attribute(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        if value.lowerBound + 8 <= p.count, knownAttribute(p, value) { return true }
        // The name, folded into a word on the way for `AttributeKind(folded:length:)`.
        var i = value.lowerBound
        var word: UInt64 = 0
        var shift: UInt64 = 0
        while i < value.upperBound, p[i].isTokenChar {
            if shift < 64 { word |= UInt64(p[i] | 0x20) << shift }
            shift &+= 8
            i += 1
        }
        guard i > value.lowerBound, i == value.upperBound || p[i] == ASCII.colon,
            let length = UInt16(exactly: i - value.lowerBound)
        else { return false }
        attributeKind = AttributeKind(folded: word, length: Int(length))
        attributeNameLength = length
        return true
    }

    /// The usual attribute, a name the answer reads (`AttributeKind`) of at most eight bytes, taken from one word:
    /// the bytes up to the first colon, folded as `attribute(_:_:)` folds them. A known name holds only letters
    /// and `-`, and only letters and `-` fold to those (CR, the other byte that folds to `-`, is not in a line):
    /// so the name is a token, as the byte-by-byte walk would find. False when that walk must decide.
    @inline(__always)
    private mutating func knownAttribute(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let word = UInt64(
            littleEndian: UnsafeRawBufferPointer(p).loadUnaligned(fromByteOffset: value.lowerBound, as: UInt64.self))
        // The lowest flag marks the first colon exactly (a borrow only runs upwards).
        let x = word ^ (0x3A &* ones)
        let colons = (x &- ones) & ~x & (0x80 &* ones)
        let length = Swift.min(colons == 0 ? 8 : colons.trailingZeroBitCount >> 3, value.count)
        guard length >= 3, length == value.count || p[value.lowerBound + length] == ASCII.colon else { return false }
        let mask = length == 8 ? UInt64.max : (UInt64(1) << UInt64(8 * length)) &- 1
        let kind = AttributeKind(folded: (word | (0x20 &* ones)) & mask, length: length)
        guard kind != .other else { return false }
        attributeKind = kind
        attributeNameLength = UInt16(length)
        return true
    }

    /// The port of an m= line that `MediaDescription(mediaLineFields:)` accepts:
    /// `<token> <port>[/<count>] <proto> <fmt> ...`; `nil` otherwise.
    private static func mediaPort(_ p: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> UInt64? {
        var fields = FieldCursor(p, value)
        var count = 0
        var port: UInt64?
        while let field = fields.next() {
            count += 1
            if count == 1 {
                guard p.isToken(field) else { return nil }
            } else if count == 2 {
                guard let value = portValue(p, field) else { return nil }
                port = value
            } else if count == 4 {
                // The formats past the first need only be fields.
                return fields.restIsValid() ? port : nil
            }
        }
        return nil
    }

    /// `<port>` or `<port>/<count>`, the port in 0...65535 and the count in 1...65535.
    private static func portValue(_ p: UnsafeBufferPointer<UInt8>, _ field: Range<Int>) -> UInt64? {
        let slash = p.firstIndex(of: ASCII.slash, in: field)
        let port = p.decimal(field.lowerBound..<slash, limit: UInt64(UInt16.max))
        guard slash < field.upperBound else { return port }
        let count = (slash + 1)..<field.upperBound
        guard p.firstIndex(of: ASCII.slash, in: count) == count.upperBound,
            let number = p.decimal(count, limit: UInt64(UInt16.max)), number > 0
        else { return nil }
        return port
    }
}
