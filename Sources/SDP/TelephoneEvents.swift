/// The event list of a telephone-event fmtp (RFC 4733 §7.1.1): `0-15,66,70`, events 0...255. Used to answer
/// with the events both ends support.
struct TelephoneEvents: Hashable {
    /// One bit per event code: event `e` is bit `e % 64` of word `e / 64`.
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// RFC 4733 §7.1.1: without an fmtp the events are 0-15.
    static let `default` = TelephoneEvents(ranges: [0...15])

    init(ranges: [ClosedRange<Int>]) {
        for range in ranges {
            for event in range.clamped(to: 0...255) { insert(event) }
        }
    }

    /// Parses an event list; `nil` when malformed.
    init?(parsing text: String) {
        var text = text
        guard let parsed = text.withUTF8({ TelephoneEvents(parsing: $0[...]) }) else { return nil }
        self = parsed
    }

    /// Parses an event list held as bytes; `nil` when malformed.
    init?<Bytes: BidirectionalCollection<UInt8>>(parsing bytes: Bytes) where Bytes.SubSequence == Bytes {
        // Items are separated by commas, each `<low>` or `<low>-<high>` with optional white space around it.
        var utf8 = bytes
        while true {
            let item = utf8.prefix { $0 != UInt8(ascii: ",") }
            utf8 = utf8[item.endIndex...]
            var bytes = item
            while let first = bytes.first, first.isSDPWhitespace { bytes = bytes.dropFirst() }
            while let last = bytes.last, last.isSDPWhitespace { bytes = bytes.dropLast() }
            let lowText = bytes.prefix { $0 != ASCII.minus }
            let highText = lowText.endIndex == bytes.endIndex ? lowText : bytes[bytes.index(after: lowText.endIndex)...]
            guard let low = parseDecimal(lowText, limit: 255), let high = parseDecimal(highText, limit: 255),
                !highText.contains(ASCII.minus), low <= high
            else { return nil }
            for event in Int(low)...Int(high) { insert(event) }
            guard let comma = utf8.first, comma == UInt8(ascii: ",") else { break }
            utf8 = utf8.dropFirst()
        }
    }

    /// Parses an event list held in `bytes[range]`, read in place as `init?(parsing:)` reads it; `nil` when
    /// malformed.
    init?(parsing bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        var start = range.lowerBound
        while true {
            let itemEnd = bytes.firstIndex(of: UInt8(ascii: ","), in: start..<range.upperBound)
            var low = start
            var high = itemEnd
            while low < high, bytes[low].isSDPWhitespace { low += 1 }
            while high > low, bytes[high - 1].isSDPWhitespace { high -= 1 }
            let dash = bytes.firstIndex(of: ASCII.minus, in: low..<high)
            let highText = dash == high ? low..<high : (dash + 1)..<high
            guard let first = bytes.decimal(low..<dash, limit: 255), let last = bytes.decimal(highText, limit: 255),
                first <= last
            else { return nil }
            for event in Int(first)...Int(last) { insert(event) }
            guard itemEnd < range.upperBound else { break }
            start = itemEnd + 1
        }
    }

    /// The events of an offered or answered fmtp, `default` when there is none.
    init?(formatParameters: FormatParameters?) {
        guard let formatParameters, !formatParameters.parameterString.isEmpty else {
            self = .default
            return
        }
        self.init(parsing: formatParameters.parameterString)
    }

    private mutating func insert(_ event: Int) {
        let bit = UInt64(1) << UInt64(event & 63)
        switch event >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    func contains(_ event: Int) -> Bool { word(holding: event) & (UInt64(1) << UInt64(event & 63)) != 0 }

    /// The word of the set that holds `event`'s bit.
    private func word(holding event: Int) -> UInt64 {
        switch event >> 6 {
        case 0: words.0
        case 1: words.1
        case 2: words.2
        default: words.3
        }
    }

    var isEmpty: Bool { words.0 | words.1 | words.2 | words.3 == 0 }

    func intersection(_ other: TelephoneEvents) -> TelephoneEvents {
        var result = self
        result.words = (
            words.0 & other.words.0, words.1 & other.words.1, words.2 & other.words.2, words.3 & other.words.3
        )
        return result
    }

    /// The list in its shortest form: `0-15,66`.
    var text: String {
        // At most 128 items of up to 3 digits and a separator: written on the stack.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func put(number: Int) {
                if number >= 100 { put(ASCII.zero &+ UInt8(number / 100)) }
                if number >= 10 { put(ASCII.zero &+ UInt8(number / 10 % 10)) }
                put(ASCII.zero &+ UInt8(number % 10))
            }
            var i = next(true, from: 0)
            while i < 256 {
                let j = next(false, from: i) - 1
                if count > 0 { put(UInt8(ascii: ",")) }
                put(number: i)
                if j != i {
                    put(ASCII.minus)
                    put(number: j)
                }
                i = next(true, from: j + 1)
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// The first event from `start` on that is in the set (`isIn`) or not; 256 when there is none.
    private func next(_ isIn: Bool, from start: Int) -> Int {
        var i = start
        while i < 256 {
            let word = word(holding: i)
            let candidates = (isIn ? word : ~word) & (UInt64.max << UInt64(i & 63))
            if candidates != 0 { return (i & ~63) + candidates.trailingZeroBitCount }
            i = (i & ~63) + 64
        }
        return 256
    }

    static func == (a: TelephoneEvents, b: TelephoneEvents) -> Bool {
        a.words == b.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
