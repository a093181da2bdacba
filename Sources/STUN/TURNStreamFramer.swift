/// One frame cut from a TCP or TLS stream to a TURN server: a STUN message or a ChannelData message
/// (RFC 8656 §12.5), told apart by the first two bits (00 and 01).
public enum TURNStreamFrame: Hashable, Sendable {
    /// A whole STUN message, for ``STUNReceivedMessage/init(decoding:limits:)``.
    case stun([UInt8])
    /// A ChannelData message, decoded.
    case channelData(TURNChannelData)
}

/// Splits a byte stream into STUN messages and ChannelData frames (RFC 8656 §12.5, RFC 8489 §6.2.2).
///
/// Append what each read returned, then take frames until ``nextFrame()`` returns `nil`; a frame is returned
/// only when all of it (with the ChannelData padding) has arrived, and the read position moves only then. The
/// buffer is bounded: a frame larger than ``maximumFrameSize`` or more than ``maximumBuffered`` bytes waiting
/// is an error. After any error the stream cannot be resynchronised, and every later call throws it again.
public struct TURNStreamFramer: Sendable {
    /// The largest frame accepted, header and padding included.
    public let maximumFrameSize: Int
    /// The most bytes held before they make frames.
    public let maximumBuffered: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: TURNFramingError?

    /// - Parameters:
    ///   - maximumFrameSize: the largest frame; 65,556 by default, the largest STUN message (and above the
    ///     largest padded ChannelData, 65,540).
    ///   - maximumBuffered: the most bytes waiting; twice the largest frame by default.
    public init(maximumFrameSize: Int = 65_556, maximumBuffered: Int? = nil) {
        self.maximumFrameSize = max(maximumFrameSize, STUNMessage.headerSize)
        self.maximumBuffered = max(maximumBuffered ?? 2 * self.maximumFrameSize, self.maximumFrameSize)
    }

    /// How many bytes are waiting.
    public var bufferedCount: Int { buffer.count - start }

    /// Adds bytes read from the stream.
    /// - Throws: ``TURNFramingError/Code/bufferFull`` when they would hold more than ``maximumBuffered``
    ///   bytes (take frames first), or the error that stopped the stream earlier.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(TURNFramingError) {
        if let failure { throw failure }
        guard bufferedCount + bytes.count <= maximumBuffered else {
            throw fail(.bufferFull, "\(bufferedCount) waiting, \(bytes.count) more, limit \(maximumBuffered)")
        }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or `nil` until more bytes arrive.
    /// - Throws: ``TURNFramingError`` when the bytes are neither STUN nor ChannelData, or a frame is too large.
    public mutating func nextFrame() throws(TURNFramingError) -> TURNStreamFrame? {
        if let failure { throw failure }
        guard bufferedCount >= TURNChannelData.headerSize else { return nil }
        let first = buffer[start]
        let length = Int(buffer.bigEndianUInt16(at: start + 2))
        let size: Int
        switch first >> 6 {
        case 0b00:
            size = STUNMessage.headerSize + length
            if bufferedCount >= 8, buffer.bigEndianUInt32(at: start + 4) != STUNMessage.magicCookie {
                throw fail(.badMagicCookie)
            }
        case 0b01:
            let number = buffer.bigEndianUInt16(at: start)
            guard TURNChannelNumber.validRange.contains(number) else {
                throw fail(.channelOutOfRange, "0x" + String(number, radix: 16))
            }
            size = TURNChannelData.headerSize + padded(length)
        default:
            throw fail(.unknownFrame, "first byte 0x" + String(first, radix: 16))
        }
        guard size <= maximumFrameSize else { throw fail(.frameTooLarge, "\(size) bytes, limit \(maximumFrameSize)") }
        guard bufferedCount >= size else { return nil }
        let frame = Array(buffer[start..<(start + size)])
        start += size
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        guard first >> 6 == 0b01 else { return .stun(frame) }
        do {
            return .channelData(try TURNChannelData(decoding: frame, isStream: true))
        } catch {
            // The header was checked above, so the frame decodes; this only keeps the typed error path whole.
            throw fail(.channelOutOfRange, error.description)
        }
    }

    private mutating func fail(_ code: TURNFramingError.Code, _ detail: String = "") -> TURNFramingError {
        let error = TURNFramingError(code, detail)
        failure = error
        return error
    }
}

/// Why a stream to a TURN server cannot be framed (RFC 8656 §12.5).
///
/// The codes may grow, so match with `==` against the static members of ``Code``.
public struct TURNFramingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// The first two bits are 10 or 11: neither STUN nor ChannelData.
        public static let unknownFrame = Code(raw: 1, name: "neither STUN nor ChannelData")
        /// A STUN frame without the magic cookie.
        public static let badMagicCookie = Code(raw: 2, name: "STUN frame without the magic cookie")
        /// A ChannelData frame with a number in 0x5000...0x7FFF.
        public static let channelOutOfRange = Code(raw: 3, name: "channel number out of range")
        /// A frame larger than ``TURNStreamFramer/maximumFrameSize``.
        public static let frameTooLarge = Code(raw: 4, name: "frame too large")
        /// More than ``TURNStreamFramer/maximumBuffered`` bytes waiting.
        public static let bufferFull = Code(raw: 5, name: "too many bytes waiting")

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
