/// An encoding name of 1 to 16 bytes held in words: as written, and lower-cased for comparing ignoring ASCII case.
/// Lets the answer written from an offer's bytes match and write codec names without going through `String`.
struct EncodingNameKey: Sendable, Hashable {
    /// The name's bytes, the first in the lowest byte of `writtenLow`.
    private let writtenLow: UInt64
    private let writtenHigh: UInt64
    /// The same bytes, each `lowercasedASCII`.
    private let foldedLow: UInt64
    private let foldedHigh: UInt64
    /// The byte count, 1...16.
    let count: Int

    /// The key of `bytes[range]`; `nil` when it is empty, longer than 16 bytes or holds NUL, CR or LF (which no
    /// line may carry as they are).
    init?(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty, range.count <= 16,
            !bytes[range].contains(where: { $0 == ASCII.nul || $0 == ASCII.cr || $0 == ASCII.lf })
        else { return nil }
        self.init(token: bytes, range)
    }

    /// The key of `bytes[range]`, 1 to 16 bytes without NUL, CR or LF (a token, as an rtpmap's name is).
    @inline(__always)
    init(token bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        count = range.count
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
        }
        writtenLow = UInt64(littleEndian: words.0)
        writtenHigh = UInt64(littleEndian: words.1)
        foldedLow = Self.lowercased(writtenLow)
        foldedHigh = Self.lowercased(writtenHigh)
    }

    /// Each byte of `word` `lowercasedASCII`: the bytes `A`...`Z` (high bit clear, at least 0x41, below 0x5B) gain
    /// 0x20. Adding to the low seven bits of a byte never carries into the next byte.
    @inline(__always)
    private static func lowercased(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7 = word & (0x7F &* ones)
        let atLeastA = low7 &+ (0x80 - 0x41) &* ones
        let aboveZ = low7 &+ (0x80 - 0x5B) &* ones
        let isUpper = atLeastA & ~aboveZ & ~word & (0x80 &* ones)
        return word | (isUpper >> 2)
    }

    /// The key of `name`; `nil` as for bytes.
    init?(_ name: String) {
        var name = name
        guard let key = name.withUTF8({ EncodingNameKey($0, 0..<$0.count) }) else { return nil }
        self = key
    }

    /// True when both name the same bytes ignoring ASCII case.
    @inline(__always)
    func equalsIgnoringCase(_ other: EncodingNameKey) -> Bool {
        foldedLow == other.foldedLow && foldedHigh == other.foldedHigh && count == other.count
    }

    /// Appends the name as written.
    func write(into writer: inout WireWriter) {
        withUnsafeBytes(of: (writtenLow.littleEndian, writtenHigh.littleEndian)) { raw in
            writer.append(
                UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }

    static let telephoneEvent = EncodingNameKey("telephone-event")
    static let opus = EncodingNameKey("opus")
}
