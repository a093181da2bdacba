/// Why bytes are not a valid RTP or RTCP packet, or why a packet cannot be encoded; `detail` says where.
///
/// Match with `error.code == .truncated`. Decoding never traps: every malformed input ends here.
public struct RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; grows over time, so match against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: UInt8, Sendable {
            case truncated, unsupportedVersion, badPadding, badHeaderExtension, badPayloadType
            case tooManyCSRCs, tooManyReportBlocks, badLength, notCompound, misplacedPadding
            case badSourceDescription, valueTooLong
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// Fewer bytes than the header, its CSRCs, its extension or its length field claim (RFC 3550 §5.1).
        public static let truncated = Code(.truncated)
        /// The version field is not 2.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A padding count of zero or one that covers more than the payload (RFC 3550 §5.1).
        public static let badPadding = Code(.badPadding)
        /// A header extension whose data is not whole 32-bit words, or longer than 65535 words (§5.3.1).
        public static let badHeaderExtension = Code(.badHeaderExtension)
        /// A payload type above 127.
        public static let badPayloadType = Code(.badPayloadType)
        /// More than 15 CSRCs, or more than 31 sources in a BYE.
        public static let tooManyCSRCs = Code(.tooManyCSRCs)
        /// More than 31 report blocks or SDES chunks in one RTCP packet (RFC 3550 §6.4).
        public static let tooManyReportBlocks = Code(.tooManyReportBlocks)
        /// An RTCP length field that does not fit the packet type or the bytes (RFC 3550 A.2).
        public static let badLength = Code(.badLength)
        /// A compound RTCP packet that does not start with SR or RR (RFC 3550 §6.1, A.2).
        public static let notCompound = Code(.notCompound)
        /// Padding on an RTCP packet that is not the last of its compound (RFC 3550 §6.4.1).
        public static let misplacedPadding = Code(.misplacedPadding)
        /// An SDES chunk whose items are not terminated by a null item within the packet (§6.5).
        public static let badSourceDescription = Code(.badSourceDescription)
        /// An SDES item or BYE reason longer than 255 bytes.
        public static let valueTooLong = Code(.valueTooLong)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// Where and how, in words.
    public var detail: String

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - detail: where and how.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code): \(detail)" }
}

/// Big-endian reads over bytes whose bounds the caller has checked.
extension Collection where Element == UInt8, Index == Int {
    @inline(__always)
    func readUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    func readUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func appendUInt32(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func writeUInt16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }
}
