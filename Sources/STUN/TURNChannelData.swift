/// A TURN channel number (RFC 8656 §12): 0x4000...0x4FFF, which the client binds to one peer.
public struct TURNChannelNumber: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The lowest number a client may bind.
    public static let first = TURNChannelNumber(uncheckedRawValue: 0x4000)
    /// The highest number a client may bind.
    public static let last = TURNChannelNumber(uncheckedRawValue: 0x4FFF)
    /// The numbers a client may bind.
    public static let validRange: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// The 16-bit number.
    public let rawValue: UInt16

    /// The channel number; `nil` outside 0x4000...0x4FFF.
    public init?(rawValue: UInt16) {
        guard Self.validRange.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(uncheckedRawValue: UInt16) { self.rawValue = uncheckedRawValue }

    public static func < (lhs: TURNChannelNumber, rhs: TURNChannelNumber) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `0x4000`.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// A ChannelData message (RFC 8656 §12.4): application data for the peer bound to a channel, behind a four-byte
/// header of channel number and length instead of a 36-byte Send or Data indication.
///
/// Over TCP and TLS the message is padded to a multiple of four bytes so that the next one stays aligned
/// (§12.5); over UDP it is not, and a receiver ignores whatever follows the stated length.
public struct TURNChannelData: Hashable, Sendable {
    /// The four bytes of channel number and length.
    public static let headerSize = 4

    /// The channel.
    public var channel: TURNChannelNumber
    /// The application data; at most 65,535 bytes (the encoder cuts the rest).
    public var payload: [UInt8]

    /// - Parameters:
    ///   - channel: the channel.
    ///   - payload: the application data.
    public init(channel: TURNChannelNumber, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// Decodes one ChannelData message.
    /// - Parameters:
    ///   - bytes: a UDP datagram, or one frame a ``TURNStreamFramer`` cut from a stream.
    ///   - isStream: whether the bytes came over TCP or TLS, where they must be exactly the padded message.
    /// - Throws: ``TURNChannelDataError`` naming the fault.
    public init(decoding bytes: [UInt8], isStream: Bool = false) throws(TURNChannelDataError) {
        guard bytes.count >= Self.headerSize else { throw TURNChannelDataError(.tooShort, "\(bytes.count) bytes") }
        let number = bytes.bigEndianUInt16(at: 0)
        guard let channel = TURNChannelNumber(rawValue: number) else {
            throw TURNChannelDataError(.channelOutOfRange, "0x" + String(number, radix: 16))
        }
        let length = Int(bytes.bigEndianUInt16(at: 2))
        let available = bytes.count - Self.headerSize
        guard length <= available else {
            throw TURNChannelDataError(.truncated, "length \(length), \(available) bytes after the header")
        }
        if isStream, available != padded(length) {
            throw TURNChannelDataError(.badPadding, "length \(length), \(available) bytes after the header")
        }
        self.channel = channel
        self.payload = Array(bytes[Self.headerSize..<(Self.headerSize + length)])
    }

    /// The message on the wire.
    /// - Parameter isStream: pad to four bytes, as TCP and TLS need (§12.5); UDP is not padded.
    public func encoded(isStream: Bool = false) -> [UInt8] {
        let body = payload.prefix(0xFFFF)
        var out: [UInt8] = []
        out.reserveCapacity(Self.headerSize + padded(body.count))
        out.appendBigEndian(channel.rawValue)
        out.appendBigEndian(UInt16(truncatingIfNeeded: body.count))
        out.append(contentsOf: body)
        if isStream { out.append(contentsOf: repeatElement(0, count: padded(body.count) - body.count)) }
        return out
    }

    /// Whether a datagram's first byte says ChannelData (0x40...0x4F, RFC 7983 §7).
    public static func isChannelData(firstByte: UInt8) -> Bool { (0x40...0x4F).contains(firstByte) }
}

/// Why bytes are not a ChannelData message (RFC 8656 §12.4, §12.5).
///
/// The codes may grow, so match with `==` against the static members of ``Code``.
public struct TURNChannelDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// Fewer than the four header bytes.
        public static let tooShort = Code(raw: 1, name: "shorter than a ChannelData header")
        /// The channel number is outside 0x4000...0x4FFF.
        public static let channelOutOfRange = Code(raw: 2, name: "channel number out of range")
        /// The length field runs past the end of the bytes.
        public static let truncated = Code(raw: 3, name: "length runs past the end")
        /// Over a stream, the frame is not the length padded to four bytes.
        public static let badPadding = Code(raw: 4, name: "frame is not the padded length")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// More detail, fit for a log line.
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.name : "\(code.name): \(detail)" }
}
