/// The host of a SIP URI or Via sent-by: a hostname, an IPv4 address or an IPv6 reference (RFC 3261 §25.1).
///
/// A parsed host is a view of the bytes it arrived in; `text` makes the string when asked.
public struct SIPHost: Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case hostname
        case ipv4
        case ipv6
    }

    public let kind: Kind
    @usableFromInline let source: [UInt8]
    /// Without the brackets of an IPv6 reference.
    @usableFromInline let span: ByteRange

    @usableFromInline
    init(kind: Kind, source: [UInt8], span: ByteRange) {
        self.kind = kind
        self.source = source
        self.span = span
    }

    /// The host as written, without the brackets of an IPv6 reference.
    @inlinable public var text: String { source.string(span) }

    /// The bytes of `text`, read in place from the message: no string is made.
    @inlinable public var bytes: SIPBytes {
        @inline(__always) get { source.view(span) }
    }

    /// A host from its text; an IPv6 address may come with or without brackets. `nil` if it is none of
    /// the three forms.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let host = bytes.withUnsafeBufferPointer({ SIPHost($0, owner: bytes, 0..<$0.count) }) else { return nil }
        self = host
    }

    /// `127.0.0.1`, the IPv4 loopback address.
    public static let loopbackIPv4 = SIPHost(kind: .ipv4, source: Array("127.0.0.1".utf8), span: ByteRange(0..<9))

    /// Validates the host at `range` of `bytes` (the buffer of `owner`) and keeps it as a view of `owner`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, owner: [UInt8], _ range: Range<Int>) {
        guard let kind = SIPHost.classify(bytes, range) else { return nil }
        var inner = range
        if bytes[range.lowerBound] == ASCII.leftBracket { inner = (range.lowerBound + 1)..<(range.upperBound - 1) }
        self.init(kind: kind, source: owner, span: ByteRange(inner))
    }

    /// The kind of host at `range` (brackets included for IPv6 references), or `nil` if it is none.
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Kind? {
        guard !range.isEmpty, range.count <= 255 else { return nil }
        if bytes[range.lowerBound] == ASCII.leftBracket {
            guard range.count > 2, bytes[range.upperBound - 1] == ASCII.rightBracket,
                parseIPv6(bytes, (range.lowerBound + 1)..<(range.upperBound - 1)) != nil
            else { return nil }
            return .ipv6
        }
        if bytes[range.upperBound - 1].isDigit, parseIPv4Word(bytes, range) != nil { return .ipv4 }
        if isHostname(bytes, range) { return .hostname }
        if parseIPv6(bytes, range) != nil { return .ipv6 }
        return nil
    }

    /// Writes the host as it appears in a URI: IPv6 addresses in brackets.
    func serialize(into buffer: inout [UInt8]) {
        if kind == .ipv6 { buffer.append(ASCII.leftBracket) }
        buffer.append(contentsOf: source[span.range])
        if kind == .ipv6 { buffer.append(ASCII.rightBracket) }
    }

    /// The host as it appears in a URI: IPv6 addresses in brackets.
    public var description: String { kind == .ipv6 ? "[\(text)]" : text }

    /// RFC 3261 §19.1.4: hosts compare case-insensitively; addresses compare by value.
    public func isEquivalent(to other: SIPHost) -> Bool {
        guard kind == other.kind else { return false }
        switch kind {
        case .hostname:
            var a = text.lowercasedASCII
            var b = other.text.lowercasedASCII
            if a.hasSuffix(".") { a.removeLast() }
            if b.hasSuffix(".") { b.removeLast() }
            return a == b
        case .ipv4:
            return source[span.range].elementsEqual(other.source[other.span.range])
        case .ipv6:
            return addressBytes == other.addressBytes
        }
    }

    /// The address bytes of an IP host (4 or 16 bytes), `nil` for a hostname.
    public var addressBytes: [UInt8]? {
        let range = span.range
        switch kind {
        case .hostname: return nil
        case .ipv4: return SIPHost.parseIPv4(source, range)
        case .ipv6: return SIPHost.parseIPv6(source, range)
        }
    }

    // MARK: Syntax

    /// `hostname = *( domainlabel "." ) toplabel [ "." ]`, labels of alphanumerics and inner hyphens.
    static func isHostname<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>) -> Bool
    where C.Index == Int {
        var labelStart = range.lowerBound
        var i = range.lowerBound
        var lastLabelStart = range.lowerBound
        while i <= range.upperBound {
            if i == range.upperBound || bytes[i] == ASCII.dot {
                let label = labelStart..<i
                if label.isEmpty {
                    // Only a single trailing dot is allowed.
                    if i != range.upperBound || i == range.lowerBound { return false }
                } else {
                    if bytes[label.lowerBound] == ASCII.minus || bytes[label.upperBound - 1] == ASCII.minus {
                        return false
                    }
                    lastLabelStart = label.lowerBound
                }
                labelStart = i + 1
            } else if !(bytes[i].isAlphanumeric || bytes[i] == ASCII.minus) {
                return false
            }
            i += 1
        }
        // The top label starts with a letter (RFC 3261 toplabel), which tells a hostname from an address.
        return bytes[lastLabelStart].isAlpha
    }

    static func parseIPv4<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>) -> [UInt8]?
    where C.Index == Int {
        guard let v = parseIPv4Word(bytes, range) else { return nil }
        return [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Dotted-quad IPv4 as a 32-bit word; allocates nothing.
    @inline(__always)
    static func parseIPv4Word<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>) -> UInt32?
    where C.Index == Int {
        guard let (stop, word) = scanIPv4(bytes, from: range.lowerBound, to: range.upperBound),
            stop == range.upperBound
        else { return nil }
        return word
    }

    /// Where a dotted-quad IPv4 address starting at `start` ends (at the first byte that is neither a digit nor
    /// a dot), or `nil` if what is there is not one; as `parseIPv4Word` on that range, in the same pass.
    ///
    /// Read octet by octet with the digits unrolled (about half the instructions of `scanIPv4`'s loop, on every
    /// Via and Contact with an address); `IPv4FastPathTests` hold it to `scanIPv4`.
    @inline(__always)
    static func ipv4End(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start >= 0, end <= bytes.count else { return nil }
        var i = start
        var octet = 0
        while true {
            // One to three digits, at most 255; a fourth digit is not an address.
            guard i < end else { return nil }
            var value = UInt32(bytes[i] &- 0x30)
            guard value < 10 else { return nil }
            i &+= 1
            if i < end, case let d = bytes[i] &- 0x30, d < 10 {
                value = value &* 10 &+ UInt32(d)
                i &+= 1
                if i < end, case let d = bytes[i] &- 0x30, d < 10 {
                    value = value &* 10 &+ UInt32(d)
                    i &+= 1
                    if i < end, bytes[i] &- 0x30 < 10 { return nil }
                }
            }
            guard value <= 255 else { return nil }
            // A dot after each of the first three octets; after the fourth, a dot would start a fifth.
            let isDot = i < end && bytes[i] == ASCII.dot
            if octet == 3 { return isDot ? nil : i }
            guard isDot else { return nil }
            i &+= 1
            octet &+= 1
        }
    }

    /// The one dotted-quad reader: from `start`, digits and dots up to `end` or the first other byte; the
    /// address's end and its value, or `nil` when those bytes are not four octets of at most three digits
    /// and at most 255.
    @inline(__always)
    static func scanIPv4<C: RandomAccessCollection<UInt8>>(_ bytes: C, from start: Int, to end: Int) -> (
        end: Int, word: UInt32
    )? where C.Index == Int {
        // Wrapping arithmetic: value stays below 256 and digits below 4 (both checked on every digit), so
        // nothing can overflow and the loop needs no overflow traps.
        var result: UInt32 = 0
        var octets = 0
        var value: UInt32 = 0
        var digits = 0
        var i = start
        while i < end {
            let b = bytes[i]
            let digit = b &- 0x30
            if digit < 10 {
                value = value &* 10 &+ UInt32(digit)
                digits &+= 1
                guard digits <= 3, value <= 255 else { return nil }
            } else if b == ASCII.dot {
                guard digits > 0, octets < 3 else { return nil }
                result = result &<< 8 | value
                octets &+= 1
                value = 0
                digits = 0
            } else {
                break
            }
            i &+= 1
        }
        guard digits > 0, octets == 3 else { return nil }
        return (i, result << 8 | value)
    }

    /// RFC 4291 §2.2 text forms, including `::` and an embedded IPv4 tail.
    static func parseIPv6<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>) -> [UInt8]?
    where C.Index == Int {
        guard range.count >= 2, range.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var i = range.lowerBound
        let end = range.upperBound
        if bytes[i] == ASCII.colon {
            guard i + 1 < end, bytes[i + 1] == ASCII.colon else { return nil }
            sawGap = true
            i += 2
        }
        while i < end {
            // An IPv4 tail?
            var j = i
            var hexDigits = 0
            var value: UInt32 = 0
            while j < end, let h = bytes[j].hexValue, hexDigits < 5 {
                value = value << 4 | UInt32(h)
                hexDigits += 1
                j += 1
            }
            if j < end, bytes[j] == ASCII.dot {
                guard let v4 = parseIPv4Word(bytes, i..<end) else { return nil }
                let groups = [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                if sawGap { tail += groups } else { head += groups }
                i = end
                break
            }
            guard hexDigits >= 1, hexDigits <= 4 else { return nil }
            if sawGap { tail.append(UInt16(value)) } else { head.append(UInt16(value)) }
            i = j
            if i == end { break }
            guard bytes[i] == ASCII.colon else { return nil }
            i += 1
            if i < end, bytes[i] == ASCII.colon {
                guard !sawGap else { return nil }
                sawGap = true
                i += 1
            } else if i == end {
                return nil
            }
        }
        let total = head.count + tail.count
        if sawGap {
            guard total <= 7 else { return nil }
        } else {
            guard total == 8 else { return nil }
        }
        let groups = head + [UInt16](repeating: 0, count: 8 - total) + tail
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for g in groups {
            out.append(UInt8(g >> 8))
            out.append(UInt8(g & 0xFF))
        }
        return out
    }
}

extension SIPHost: Hashable {
    public static func == (a: SIPHost, b: SIPHost) -> Bool {
        a.kind == b.kind && a.source[a.span.range].elementsEqual(b.source[b.span.range])
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        for b in source[span.range] { hasher.combine(b) }
    }
}

extension ByteScanner {
    /// Reads a hostname, IPv4 address or bracketed IPv6 reference and classifies it, as `readHostRange()` then
    /// `SIPHost.classify` would, in one pass for hostnames and IPv4 addresses. Returns the host without the
    /// brackets of an IPv6 reference; leaves the position unchanged when there is no valid host.
    mutating func readHost() -> (span: ByteRange, kind: SIPHost.Kind)? {
        let start = index
        guard start < end, bytes[start] != ASCII.leftBracket else {
            guard let range = readHostRange(), let kind = SIPHost.classify(bytes, range) else {
                index = start
                return nil
            }
            let span =
                kind == .ipv6 ? ByteRange(start: range.lowerBound + 1, end: range.upperBound - 1) : ByteRange(range)
            return (span, kind)
        }
        // An IPv4 address is read and checked in one pass, when no host character follows it.
        if bytes[start].isDigit, let stop = SIPHost.ipv4End(bytes, from: start, to: end),
            stop == end || !(bytes[stop].isIn(.label) || bytes[stop] == ASCII.dot)
        {
            index = stop
            return (ByteRange(start..<stop), .ipv4)
        }
        // hostname = *( domainlabel "." ) toplabel [ "." ]: labels of alphanumerics and inner hyphens, the top
        // label starting with a letter. Checked label by label while the host characters are read.
        var i = start
        var topLabelStart = start
        var isHostname = true
        while true {
            let labelStart = i
            i = ByteScanner.skip(bytes, from: i, to: end, while: { $0.isIn(.label) })
            if i > labelStart {
                if bytes[labelStart] == ASCII.minus || bytes[i - 1] == ASCII.minus { isHostname = false }
                topLabelStart = labelStart
            }
            guard i < end, bytes[i] == ASCII.dot else { break }
            // Only a single trailing dot may end a hostname: an empty label before a dot is an error.
            if i == labelStart { isHostname = false }
            i += 1
        }
        let range = start..<i
        guard !range.isEmpty, range.count <= 255 else {
            index = start
            return nil
        }
        let kind: SIPHost.Kind
        if bytes[i - 1].isDigit, SIPHost.parseIPv4Word(bytes, range) != nil {
            kind = .ipv4
        } else if isHostname, bytes[topLabelStart].isAlpha {
            kind = .hostname
        } else if SIPHost.parseIPv6(bytes, range) != nil {
            kind = .ipv6
        } else {
            index = start
            return nil
        }
        index = i
        return (ByteRange(range), kind)
    }
}
