/// A compound RTCP packet (RFC 3550 §6.1): the unit RTCP sends and receives, one UDP datagram.
///
/// Decoding applies the validity checks of RFC 3550 A.2: version 2 throughout, padding only on the last
/// packet, length fields that add up to the datagram, and (unless reduced-size RTCP is allowed, RFC 5506)
/// an SR or RR first.
public struct RTCPCompoundPacket: Hashable, Sendable {
    /// The packets in order.
    public var packets: [RTCPPacket]

    /// - Parameter packets: the packets; a compound to send starts with an SR or RR (RFC 3550 §6.1).
    public init(packets: [RTCPPacket]) { self.packets = packets }

    /// Decodes a compound packet.
    /// - Parameters:
    ///   - bytes: the datagram (after SRTCP unprotection, when SRTP is in use).
    ///   - allowsReducedSize: accept a first packet other than SR or RR (RFC 5506).
    /// - Throws: ``RTPError``.
    public init(parsing bytes: ArraySlice<UInt8>, allowsReducedSize: Bool = false) throws(RTPError) {
        var packets: [RTCPPacket] = []
        var offset = bytes.startIndex
        let end = bytes.endIndex
        guard bytes.count >= 4 else { throw RTPError(.truncated, "\(bytes.count) bytes, an RTCP header needs 4") }
        while offset < end {
            guard end - offset >= 4 else {
                throw RTPError(.truncated, "\(end - offset) bytes left at byte \(offset - bytes.startIndex)")
            }
            let first = bytes[offset]
            guard first >> 6 == 2 else {
                throw RTPError(.unsupportedVersion, "version \(first >> 6) at byte \(offset - bytes.startIndex)")
            }
            let packetType = bytes[offset + 1]
            let length = (Int(bytes.readUInt16(at: offset + 2)) + 1) * 4
            guard length <= end - offset else {
                throw RTPError(.badLength, "length \(length) exceeds the \(end - offset) bytes left")
            }
            var bodyEnd = offset + length
            if first & 0x20 != 0 {
                guard bodyEnd == end else {
                    throw RTPError(.misplacedPadding, "padding on a packet before the last of the compound")
                }
                let count = Int(bytes[bodyEnd - 1])
                guard count > 0, count <= length - 4 else {
                    throw RTPError(.badPadding, "RTCP padding count \(count) in a \(length)-byte packet")
                }
                bodyEnd -= count
            }
            if packets.isEmpty && !allowsReducedSize {
                guard packetType == RTCPPacket.senderReportType || packetType == RTCPPacket.receiverReportType
                else { throw RTPError(.notCompound, "the first packet has type \(packetType), not SR or RR") }
            }
            let body = bytes[(offset + 4)..<bodyEnd]
            packets.append(try RTCPPacket(type: packetType, count: first & 0x1F, body: body))
            offset += length
        }
        self.packets = packets
    }

    /// Decodes a compound packet from a whole datagram; see the slice initializer.
    public init(parsing bytes: [UInt8], allowsReducedSize: Bool = false) throws(RTPError) {
        try self.init(parsing: bytes[...], allowsReducedSize: allowsReducedSize)
    }

    /// Appends the encoded compound packet to `buffer`.
    /// - Throws: ``RTPError`` for more than 31 blocks, chunks or sources, or SDES/BYE text over 255 bytes.
    public func serialize(into buffer: inout [UInt8]) throws(RTPError) {
        for packet in packets { try packet.serialize(into: &buffer) }
    }

    /// The encoded compound packet.
    /// - Parameter extra: capacity to reserve beyond the packet (for the SRTCP trailer).
    public func serialized(reservingCapacity extra: Int = 0) throws(RTPError) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(128 + extra)
        try serialize(into: &buffer)
        return buffer
    }
}

extension RTCPPacket {
    /// Decodes one packet's body (after the 4-byte header, without padding).
    init(type: UInt8, count: UInt8, body: ArraySlice<UInt8>) throws(RTPError) {
        let count = Int(count)
        switch type {
        case RTCPPacket.senderReportType:
            guard body.count >= 24 + count * RTCPReportBlock.length else {
                throw RTPError(.badLength, "SR with \(count) blocks in \(body.count) bytes")
            }
            let start = body.startIndex
            let info = RTCPSenderInfo(
                ntpTimestamp: NTPTimestamp(
                    seconds: body.readUInt32(at: start + 4), fraction: body.readUInt32(at: start + 8)),
                rtpTimestamp: body.readUInt32(at: start + 12), packetCount: body.readUInt32(at: start + 16),
                octetCount: body.readUInt32(at: start + 20))
            let blocksEnd = start + 24 + count * RTCPReportBlock.length
            self = .senderReport(
                RTCPSenderReport(
                    ssrc: body.readUInt32(at: start), senderInfo: info,
                    reportBlocks: RTCPReportBlock.decode(body[(start + 24)..<blocksEnd]),
                    profileExtensions: Array(body[blocksEnd...])))
        case RTCPPacket.receiverReportType:
            guard body.count >= 4 + count * RTCPReportBlock.length else {
                throw RTPError(.badLength, "RR with \(count) blocks in \(body.count) bytes")
            }
            let start = body.startIndex
            let blocksEnd = start + 4 + count * RTCPReportBlock.length
            self = .receiverReport(
                RTCPReceiverReport(
                    ssrc: body.readUInt32(at: start),
                    reportBlocks: RTCPReportBlock.decode(body[(start + 4)..<blocksEnd]),
                    profileExtensions: Array(body[blocksEnd...])))
        case RTCPPacket.sourceDescriptionType:
            self = .sourceDescription(try RTCPSourceDescription(parsing: body, chunkCount: count))
        case RTCPPacket.goodbyeType:
            guard body.count >= count * 4 else {
                throw RTPError(.badLength, "BYE with \(count) sources in \(body.count) bytes")
            }
            var offset = body.startIndex
            var sources: [UInt32] = []
            for _ in 0..<count {
                sources.append(body.readUInt32(at: offset))
                offset += 4
            }
            var goodbye = RTCPGoodbye(sources: sources)
            if offset < body.endIndex {
                let length = Int(body[offset])
                guard length < body.endIndex - offset else {
                    throw RTPError(.badLength, "BYE reason of \(length) bytes overruns the packet")
                }
                goodbye.reason = Array(body[(offset + 1)..<(offset + 1 + length)])
            }
            self = .goodbye(goodbye)
        default:
            self = .other(RTCPUnknownPacket(packetType: type, count: UInt8(count), body: Array(body)))
        }
    }

    /// Appends the encoded packet: header, body, and the length field over both.
    func serialize(into buffer: inout [UInt8]) throws(RTPError) {
        let start = buffer.count
        let count: Int
        switch self {
        case .senderReport(let report):
            count = report.reportBlocks.count
            buffer.append(contentsOf: [0, 0, 0, 0])
            buffer.appendUInt32(report.ssrc)
            buffer.appendUInt32(report.senderInfo.ntpTimestamp.seconds)
            buffer.appendUInt32(report.senderInfo.ntpTimestamp.fraction)
            buffer.appendUInt32(report.senderInfo.rtpTimestamp)
            buffer.appendUInt32(report.senderInfo.packetCount)
            buffer.appendUInt32(report.senderInfo.octetCount)
            for block in report.reportBlocks { block.serialize(into: &buffer) }
            buffer.append(contentsOf: report.profileExtensions)
        case .receiverReport(let report):
            count = report.reportBlocks.count
            buffer.append(contentsOf: [0, 0, 0, 0])
            buffer.appendUInt32(report.ssrc)
            for block in report.reportBlocks { block.serialize(into: &buffer) }
            buffer.append(contentsOf: report.profileExtensions)
        case .sourceDescription(let description):
            count = description.chunks.count
            buffer.append(contentsOf: [0, 0, 0, 0])
            try description.serializeChunks(into: &buffer, packetStart: start)
        case .goodbye(let goodbye):
            count = goodbye.sources.count
            buffer.append(contentsOf: [0, 0, 0, 0])
            for source in goodbye.sources { buffer.appendUInt32(source) }
            if let reason = goodbye.reason {
                guard reason.count < 256 else { throw RTPError(.valueTooLong, "BYE reason of \(reason.count) bytes") }
                buffer.append(UInt8(reason.count))
                buffer.append(contentsOf: reason)
            }
        case .other(let packet):
            count = Int(packet.count & 0x1F)
            buffer.append(contentsOf: [0, 0, 0, 0])
            buffer.append(contentsOf: packet.body)
        }
        guard count < 32 else {
            buffer.removeSubrange(start...)
            throw RTPError(.tooManyReportBlocks, "\(count) blocks, chunks or sources in one RTCP packet, at most 31")
        }
        while (buffer.count - start) % 4 != 0 { buffer.append(0) }
        buffer[start] = 0x80 | UInt8(count)
        buffer[start + 1] = packetType
        buffer.writeUInt16(UInt16(truncatingIfNeeded: (buffer.count - start) / 4 - 1), at: start + 2)
    }
}

extension RTCPReportBlock {
    /// Decodes consecutive 24-byte blocks; the caller checked the length.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [RTCPReportBlock] {
        var blocks: [RTCPReportBlock] = []
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= length {
            let lost = bytes.readUInt32(at: offset + 4) & 0x00FF_FFFF
            blocks.append(
                RTCPReportBlock(
                    ssrc: bytes.readUInt32(at: offset), fractionLost: bytes[offset + 4],
                    cumulativeLost: Int32(bitPattern: lost << 8) >> 8,
                    extendedHighestSequenceNumber: bytes.readUInt32(at: offset + 8),
                    interarrivalJitter: bytes.readUInt32(at: offset + 12),
                    lastSenderReport: bytes.readUInt32(at: offset + 16),
                    delaySinceLastSenderReport: bytes.readUInt32(at: offset + 20)))
            offset += length
        }
        return blocks
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.appendUInt32(ssrc)
        buffer.appendUInt32(UInt32(fractionLost) << 24 | UInt32(bitPattern: cumulativeLost) & 0x00FF_FFFF)
        buffer.appendUInt32(extendedHighestSequenceNumber)
        buffer.appendUInt32(interarrivalJitter)
        buffer.appendUInt32(lastSenderReport)
        buffer.appendUInt32(delaySinceLastSenderReport)
    }
}

extension RTCPSourceDescription {
    /// Decodes `chunkCount` chunks: SSRC, items, a null item, padding to a 32-bit boundary (§6.5).
    init(parsing body: ArraySlice<UInt8>, chunkCount: Int) throws(RTPError) {
        var chunks: [Chunk] = []
        var offset = body.startIndex
        let end = body.endIndex
        for _ in 0..<chunkCount {
            guard end - offset >= 4 else { throw RTPError(.badSourceDescription, "SDES chunk missing its SSRC") }
            var chunk = Chunk(ssrc: body.readUInt32(at: offset), items: [])
            offset += 4
            while true {
                guard offset < end else { throw RTPError(.badSourceDescription, "SDES items without a null item") }
                let type = body[offset]
                if type == 0 {
                    // The null item; then pad to the next 32-bit boundary from the packet start.
                    offset += 1
                    while (offset - body.startIndex) % 4 != 0 { offset += 1 }
                    guard offset <= end else { throw RTPError(.badSourceDescription, "SDES chunk padding overruns") }
                    break
                }
                guard end - offset >= 2, end - offset - 2 >= Int(body[offset + 1]) else {
                    throw RTPError(.badSourceDescription, "SDES item overruns the packet")
                }
                let length = Int(body[offset + 1])
                chunk.items.append(
                    Item(type: ItemType(rawValue: type), value: Array(body[(offset + 2)..<(offset + 2 + length)])))
                offset += 2 + length
            }
            chunks.append(chunk)
        }
        self.chunks = chunks
    }

    func serializeChunks(into buffer: inout [UInt8], packetStart: Int) throws(RTPError) {
        for chunk in chunks {
            buffer.appendUInt32(chunk.ssrc)
            for item in chunk.items {
                guard item.value.count < 256 else {
                    throw RTPError(.valueTooLong, "SDES item of \(item.value.count) bytes")
                }
                buffer.append(item.type.rawValue)
                buffer.append(UInt8(item.value.count))
                buffer.append(contentsOf: item.value)
            }
            // At least one null octet ends the list, then pad to 32 bits (RFC 3550 §6.5).
            buffer.append(0)
            while (buffer.count - packetStart) % 4 != 0 { buffer.append(0) }
        }
    }
}
