/// One RTCP packet of a compound packet (RFC 3550 §6.4-§6.6).
public enum RTCPPacket: Hashable, Sendable {
    /// SR, packet type 200 (§6.4.1).
    case senderReport(RTCPSenderReport)
    /// RR, packet type 201 (§6.4.2).
    case receiverReport(RTCPReceiverReport)
    /// SDES, packet type 202 (§6.5).
    case sourceDescription(RTCPSourceDescription)
    /// BYE, packet type 203 (§6.6).
    case goodbye(RTCPGoodbye)
    /// Any other type (APP, RTPFB, PSFB, XR, ...), kept as its header fields and body.
    case other(RTCPUnknownPacket)

    /// SR.
    public static let senderReportType: UInt8 = 200
    /// RR.
    public static let receiverReportType: UInt8 = 201
    /// SDES.
    public static let sourceDescriptionType: UInt8 = 202
    /// BYE.
    public static let goodbyeType: UInt8 = 203

    /// The packet type field.
    public var packetType: UInt8 {
        switch self {
        case .senderReport: RTCPPacket.senderReportType
        case .receiverReport: RTCPPacket.receiverReportType
        case .sourceDescription: RTCPPacket.sourceDescriptionType
        case .goodbye: RTCPPacket.goodbyeType
        case .other(let packet): packet.packetType
        }
    }
}

/// A reception report block (RFC 3550 §6.4.1): what one receiver saw of one source.
public struct RTCPReportBlock: Hashable, Sendable {
    /// The source the block is about.
    public var ssrc: UInt32
    /// Packets lost since the previous report, as a fraction of those expected, × 256.
    public var fractionLost: UInt8
    /// Packets lost since reception began, a signed 24-bit value.
    public var cumulativeLost: Int32
    /// The highest sequence number received, with the wrap count in the high 16 bits.
    public var extendedHighestSequenceNumber: UInt32
    /// The interarrival jitter in timestamp units (A.8).
    public var interarrivalJitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the source's latest SR; 0 when none arrived.
    public var lastSenderReport: UInt32
    /// The delay since that SR arrived, in 1/65536 s; 0 when none arrived.
    public var delaySinceLastSenderReport: UInt32

    /// - Parameters:
    ///   - ssrc: the source the block is about.
    ///   - fractionLost: the fraction lost × 256.
    ///   - cumulativeLost: the cumulative loss (24-bit signed range).
    ///   - extendedHighestSequenceNumber: the extended highest sequence number.
    ///   - interarrivalJitter: the jitter in timestamp units.
    ///   - lastSenderReport: LSR.
    ///   - delaySinceLastSenderReport: DLSR.
    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequenceNumber: UInt32,
        interarrivalJitter: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.interarrivalJitter = interarrivalJitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The encoded length.
    public static let length = 24
}

/// The sender information of an SR (RFC 3550 §6.4.1).
public struct RTCPSenderInfo: Hashable, Sendable {
    /// The wall-clock time of the report.
    public var ntpTimestamp: NTPTimestamp
    /// The same instant in the stream's RTP timestamp units.
    public var rtpTimestamp: UInt32
    /// Packets sent since the stream started (wraps).
    public var packetCount: UInt32
    /// Payload octets sent since the stream started (wraps).
    public var octetCount: UInt32

    /// - Parameters:
    ///   - ntpTimestamp: the wall-clock time.
    ///   - rtpTimestamp: the same instant in RTP units.
    ///   - packetCount: the sender's packet count.
    ///   - octetCount: the sender's payload octet count.
    public init(ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32) {
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
    }
}

/// An SR (RFC 3550 §6.4.1).
public struct RTCPSenderReport: Hashable, Sendable {
    /// The sender.
    public var ssrc: UInt32
    /// What it sent.
    public var senderInfo: RTCPSenderInfo
    /// What it received, at most 31 blocks.
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extensions after the blocks, kept as received.
    public var profileExtensions: [UInt8]

    /// - Parameters:
    ///   - ssrc: the sender.
    ///   - senderInfo: the sender information.
    ///   - reportBlocks: reception reports.
    ///   - profileExtensions: extension bytes (a multiple of 4), none by default.
    public init(
        ssrc: UInt32, senderInfo: RTCPSenderInfo, reportBlocks: [RTCPReportBlock], profileExtensions: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.senderInfo = senderInfo
        self.reportBlocks = reportBlocks
        self.profileExtensions = profileExtensions
    }
}

/// An RR (RFC 3550 §6.4.2).
public struct RTCPReceiverReport: Hashable, Sendable {
    /// The reporter.
    public var ssrc: UInt32
    /// What it received, at most 31 blocks (none is valid).
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extensions after the blocks, kept as received.
    public var profileExtensions: [UInt8]

    /// - Parameters:
    ///   - ssrc: the reporter.
    ///   - reportBlocks: reception reports.
    ///   - profileExtensions: extension bytes (a multiple of 4), none by default.
    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtensions = profileExtensions
    }
}

/// An SDES packet (RFC 3550 §6.5): chunks of items per source.
public struct RTCPSourceDescription: Hashable, Sendable {
    /// The items of one source.
    public struct Chunk: Hashable, Sendable {
        /// The source or contributing source.
        public var ssrc: UInt32
        /// Its items.
        public var items: [Item]

        /// - Parameters:
        ///   - ssrc: the source.
        ///   - items: its items.
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The CNAME item's text, when present.
        public var cname: String? { items.first { $0.type == .cname }.map(\.text) }
    }

    /// One SDES item: a type and up to 255 bytes of UTF-8 text.
    public struct Item: Hashable, Sendable {
        /// The item type.
        public var type: ItemType
        /// The value bytes.
        public var value: [UInt8]

        /// - Parameters:
        ///   - type: the item type.
        ///   - value: the value bytes, at most 255.
        public init(type: ItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// - Parameters:
        ///   - type: the item type.
        ///   - text: the value as text.
        public init(type: ItemType, text: String) { self.init(type: type, value: Array(text.utf8)) }

        /// The value as text (invalid UTF-8 repaired).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// An SDES item type (RFC 3550 §6.5.1-§6.5.8).
    public struct ItemType: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// CNAME, the canonical end-point identifier (§6.5.1).
        public static let cname = ItemType(rawValue: 1)
        /// NAME (§6.5.2).
        public static let name = ItemType(rawValue: 2)
        /// EMAIL (§6.5.3).
        public static let email = ItemType(rawValue: 3)
        /// PHONE (§6.5.4).
        public static let phone = ItemType(rawValue: 4)
        /// LOC (§6.5.5).
        public static let location = ItemType(rawValue: 5)
        /// TOOL (§6.5.6).
        public static let tool = ItemType(rawValue: 6)
        /// NOTE (§6.5.7).
        public static let note = ItemType(rawValue: 7)
        /// PRIV (§6.5.8).
        public static let privateExtension = ItemType(rawValue: 8)
    }

    /// The chunks, at most 31.
    public var chunks: [Chunk]

    /// - Parameter chunks: the chunks.
    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// An SDES packet with one chunk carrying the CNAME of `ssrc`.
    public static func cname(_ cname: String, ssrc: UInt32) -> RTCPSourceDescription {
        RTCPSourceDescription(chunks: [Chunk(ssrc: ssrc, items: [Item(type: .cname, text: cname)])])
    }
}

/// A BYE packet (RFC 3550 §6.6).
public struct RTCPGoodbye: Hashable, Sendable {
    /// The sources leaving, at most 31.
    public var sources: [UInt32]
    /// The reason for leaving, up to 255 bytes of UTF-8 text.
    public var reason: [UInt8]?

    /// - Parameters:
    ///   - sources: the sources leaving.
    ///   - reason: the reason as text, none by default.
    public init(sources: [UInt32], reason: String? = nil) {
        self.sources = sources
        self.reason = reason.map { Array($0.utf8) }
    }

    /// The reason as text.
    public var reasonText: String? { reason.map { String(decoding: $0, as: UTF8.self) } }
}

/// An RTCP packet of a type this stack does not interpret.
public struct RTCPUnknownPacket: Hashable, Sendable {
    /// The packet type.
    public var packetType: UInt8
    /// The 5-bit count or subtype field.
    public var count: UInt8
    /// The bytes after the 4-byte header, without padding.
    public var body: [UInt8]

    /// - Parameters:
    ///   - packetType: the packet type.
    ///   - count: the 5-bit count or subtype.
    ///   - body: the bytes after the header (a multiple of 4).
    public init(packetType: UInt8, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = count
        self.body = body
    }
}
