/// An RTP data packet (RFC 3550 §5.1): the fixed header, CSRCs, an optional header extension (§5.3.1), the
/// payload and padding.
///
/// Decoding keeps the payload and the extension data as slices of the received bytes (no copy); the
/// version is always 2. Decoding checks every length and throws ``RTPError`` instead of trapping.
public struct RTPPacket: Hashable, Sendable {
    /// The marker bit: set on the first packet of a talk-spurt for audio (RFC 3551 §4.1).
    public var marker: Bool
    /// The payload type, 0...127.
    public var payloadType: UInt8
    /// The sequence number; it wraps.
    public var sequenceNumber: UInt16
    /// The sampling instant of the first octet of the payload, in the payload format's clock units.
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// The contributing sources, at most 15.
    public var csrcs: [UInt32]
    /// The header extension, when the X bit is set.
    public var headerExtension: RTPHeaderExtension?
    /// The payload, without padding.
    public var payload: ArraySlice<UInt8>
    /// The padding length in bytes including its own count byte (RFC 3550 §5.1); 0 for no padding.
    public var paddingLength: UInt8

    /// A packet to send.
    /// - Parameters:
    ///   - payloadType: the payload type, 0...127.
    ///   - sequenceNumber: the sequence number.
    ///   - timestamp: the RTP timestamp.
    ///   - ssrc: the synchronization source.
    ///   - marker: the marker bit.
    ///   - csrcs: contributing sources, none by default.
    ///   - headerExtension: a header extension, none by default.
    ///   - payload: the payload.
    ///   - paddingLength: padding bytes to append (including the count byte), none by default.
    public init(
        payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool = false,
        csrcs: [UInt32] = [], headerExtension: RTPHeaderExtension? = nil, payload: ArraySlice<UInt8>,
        paddingLength: UInt8 = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingLength = paddingLength
    }

    /// The length of the fixed header and its CSRCs (12 + 4 × CSRC count).
    public static let fixedHeaderLength = 12

    /// Decodes an RTP packet (RFC 3550 §5.1, §5.3.1).
    /// - Parameter bytes: the whole datagram (after SRTP unprotection, when SRTP is in use).
    /// - Throws: ``RTPError`` with `.truncated`, `.unsupportedVersion`, `.badPadding` or
    ///   `.badHeaderExtension`.
    public init(parsing bytes: ArraySlice<UInt8>) throws(RTPError) {
        let start = bytes.startIndex
        let end = bytes.endIndex
        guard bytes.count >= RTPPacket.fixedHeaderLength else {
            throw RTPError(.truncated, "\(bytes.count) bytes, an RTP header needs 12")
        }
        let first = bytes[start]
        guard first >> 6 == 2 else { throw RTPError(.unsupportedVersion, "version \(first >> 6)") }
        let hasPadding = first & 0x20 != 0
        let hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        let second = bytes[start + 1]
        marker = second & 0x80 != 0
        payloadType = second & 0x7F
        sequenceNumber = bytes.readUInt16(at: start + 2)
        timestamp = bytes.readUInt32(at: start + 4)
        ssrc = bytes.readUInt32(at: start + 8)

        var offset = start + RTPPacket.fixedHeaderLength
        guard end - offset >= csrcCount * 4 else {
            throw RTPError(.truncated, "\(csrcCount) CSRCs do not fit in \(bytes.count) bytes")
        }
        if csrcCount == 0 {
            csrcs = []
        } else {
            var list: [UInt32] = []
            list.reserveCapacity(csrcCount)
            for _ in 0..<csrcCount {
                list.append(bytes.readUInt32(at: offset))
                offset += 4
            }
            csrcs = list
        }

        if hasExtension {
            guard end - offset >= 4 else { throw RTPError(.truncated, "header extension at byte \(offset - start)") }
            let profile = bytes.readUInt16(at: offset)
            let words = Int(bytes.readUInt16(at: offset + 2))
            offset += 4
            guard end - offset >= words * 4 else {
                throw RTPError(.badHeaderExtension, "\(words) extension words do not fit in \(bytes.count) bytes")
            }
            headerExtension = RTPHeaderExtension(profile: profile, data: bytes[offset..<offset + words * 4])
            offset += words * 4
        } else {
            headerExtension = nil
        }

        var payloadEnd = end
        if hasPadding {
            let count = bytes[end - 1]
            guard count > 0, Int(count) <= end - offset else {
                throw RTPError(.badPadding, "padding count \(count) with \(end - offset) bytes after the header")
            }
            payloadEnd -= Int(count)
            paddingLength = count
        } else {
            paddingLength = 0
        }
        payload = bytes[offset..<payloadEnd]
    }

    /// Decodes an RTP packet from a whole datagram (RFC 3550 §5.1); see the slice initializer.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        try self.init(parsing: bytes[...])
    }

    /// The header length: fixed part, CSRCs and extension.
    public var headerLength: Int {
        RTPPacket.fixedHeaderLength + 4 * csrcs.count + (headerExtension.map { 4 + $0.data.count } ?? 0)
    }

    /// The encoded length: header, payload and padding.
    public var encodedLength: Int { headerLength + payload.count + Int(paddingLength) }
}

/// An RTP header extension (RFC 3550 §5.3.1): 16 bits defined by the profile and whole 32-bit words of data
/// (RFC 8285 one- and two-byte elements live inside `data`).
public struct RTPHeaderExtension: Hashable, Sendable {
    /// The 16 bits "defined by profile" (0xBEDE for RFC 8285 one-byte elements).
    public var profile: UInt16
    /// The extension data; its length must be a multiple of 4.
    public var data: ArraySlice<UInt8>

    /// - Parameters:
    ///   - profile: the profile-defined 16 bits.
    ///   - data: the data, a multiple of 4 bytes long.
    public init(profile: UInt16, data: ArraySlice<UInt8>) {
        self.profile = profile
        self.data = data
    }

    /// The length field: the data length in 32-bit words.
    public var lengthInWords: Int { data.count / 4 }
}

extension RTPPacket {
    /// Appends the encoded packet to `buffer` (RFC 3550 §5.1).
    ///
    /// Reserve room in `buffer` first when the packet goes on to SRTP (which appends its tag).
    /// - Throws: ``RTPError`` with `.badPayloadType`, `.tooManyCSRCs` or `.badHeaderExtension`.
    public func serialize(into buffer: inout [UInt8]) throws(RTPError) {
        guard payloadType < 128 else { throw RTPError(.badPayloadType, "payload type \(payloadType)") }
        guard csrcs.count < 16 else { throw RTPError(.tooManyCSRCs, "\(csrcs.count) CSRCs, at most 15") }
        if let headerExtension {
            guard headerExtension.data.count % 4 == 0, headerExtension.data.count / 4 <= 0xFFFF else {
                throw RTPError(.badHeaderExtension, "\(headerExtension.data.count) bytes of extension data")
            }
        }
        var first: UInt8 = 0x80 | UInt8(csrcs.count)
        if paddingLength > 0 { first |= 0x20 }
        if headerExtension != nil { first |= 0x10 }
        buffer.append(first)
        buffer.append(marker ? payloadType | 0x80 : payloadType)
        buffer.appendUInt16(sequenceNumber)
        buffer.appendUInt32(timestamp)
        buffer.appendUInt32(ssrc)
        for csrc in csrcs { buffer.appendUInt32(csrc) }
        if let headerExtension {
            buffer.appendUInt16(headerExtension.profile)
            buffer.appendUInt16(UInt16(headerExtension.data.count / 4))
            buffer.append(contentsOf: headerExtension.data)
        }
        buffer.append(contentsOf: payload)
        if paddingLength > 0 {
            buffer.append(contentsOf: repeatElement(0, count: Int(paddingLength) - 1))
            buffer.append(paddingLength)
        }
    }

    /// The encoded packet.
    /// - Parameter reservingCapacity: extra capacity to reserve after the packet (e.g. for the SRTP tag).
    /// - Throws: see ``serialize(into:)``.
    public func serialized(reservingCapacity extra: Int = 0) throws(RTPError) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(encodedLength + extra)
        try serialize(into: &buffer)
        return buffer
    }
}
