/// The media type of an m= line (RFC 8866 §5.14): `audio`, `video`, `image`, ... kept as written.
public struct MediaType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The media type as written.
    public var rawValue: String

    /// A media type; known ones are static members.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `audio`.
    public static let audio = MediaType(rawValue: "audio")
    /// `video`.
    public static let video = MediaType(rawValue: "video")
    /// `text`.
    public static let text = MediaType(rawValue: "text")
    /// `application`.
    public static let application = MediaType(rawValue: "application")
    /// `message`.
    public static let message = MediaType(rawValue: "message")
    /// T.38 fax (RFC 6466).
    public static let image = MediaType(rawValue: "image")

    /// True when the types are the same, ignoring ASCII case.
    public func matches(_ other: MediaType) -> Bool { rawValue.equalsIgnoringASCIICase(other.rawValue) }

    public var description: String { rawValue }
}

/// The transport protocol of an m= line (RFC 8866 §5.14, §8.2.2), kept as written.
public struct TransportProtocol: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The protocol as written.
    public var rawValue: String

    /// A transport protocol; known ones are static members.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// RTP with the audio/video profile (RFC 3551).
    public static let rtpAVP = TransportProtocol(rawValue: "RTP/AVP")
    /// SRTP (RFC 3711), keyed by a=crypto (RFC 4568) here.
    public static let rtpSAVP = TransportProtocol(rawValue: "RTP/SAVP")
    /// RTP with RTCP-based feedback (RFC 4585).
    public static let rtpAVPF = TransportProtocol(rawValue: "RTP/AVPF")
    /// SRTP with RTCP-based feedback (RFC 5124).
    public static let rtpSAVPF = TransportProtocol(rawValue: "RTP/SAVPF")
    /// DTLS-SRTP (RFC 5764).
    public static let udpTLSRTPSAVP = TransportProtocol(rawValue: "UDP/TLS/RTP/SAVP")
    /// DTLS-SRTP with feedback, as WebRTC uses (RFC 5764).
    public static let udpTLSRTPSAVPF = TransportProtocol(rawValue: "UDP/TLS/RTP/SAVPF")
    /// T.38 over UDPTL.
    public static let udptl = TransportProtocol(rawValue: "udptl")

    /// True when the protocols are the same, ignoring ASCII case.
    public func matches(_ other: TransportProtocol) -> Bool { rawValue.equalsIgnoringASCIICase(other.rawValue) }

    /// True for the RTP profiles (`RTP/...` and `UDP/TLS/RTP/...`), whose formats are payload types.
    public var isRTP: Bool {
        let upper = rawValue.uppercased()
        return upper.hasPrefix("RTP/") || upper.hasPrefix("UDP/TLS/RTP/")
    }

    public var description: String { rawValue }
}

/// A media section (RFC 8866 §5.14): the m= line and the i=, c=, b=, k= and a= lines after it.
public struct MediaDescription: Sendable, Hashable, SDPAttributeContainer {
    /// `audio`, `video`, ...
    public var mediaType: MediaType
    /// The transport port; 0 disables (offer) or rejects (answer) the stream (RFC 3264 §5.1, §6).
    public var port: UInt16
    /// The number of ports (`m=audio 49170/2 ...`); `nil` when not given.
    public var portCount: UInt16?
    /// `RTP/AVP`, `RTP/SAVP`, ...
    public var transport: TransportProtocol
    /// The formats: RTP payload type numbers for the RTP profiles, other tokens otherwise.
    public var formats: [String]
    /// The i= line.
    public var information: String?
    /// The c= lines; empty when the session-level one applies.
    public var connections: [Connection]
    /// The b= lines.
    public var bandwidths: [Bandwidth]
    /// The k= line (obsolete; kept as written).
    public var key: String?
    /// The a= lines, in order.
    public var attributes: [Attribute]
    /// Lines of unknown type, kept to be written back.
    public var unknownLines: [UnknownLine]

    /// - Parameters:
    ///   - mediaType: the media type.
    ///   - port: the transport port.
    ///   - transport: the transport protocol.
    ///   - formats: the format list.
    ///   - attributes: a= lines, none by default.
    public init(
        mediaType: MediaType, port: UInt16, transport: TransportProtocol, formats: [String],
        attributes: [Attribute] = []
    ) {
        self.mediaType = mediaType
        self.port = port
        self.portCount = nil
        self.transport = transport
        self.formats = formats
        self.information = nil
        self.connections = []
        self.bandwidths = []
        self.key = nil
        self.attributes = attributes
        self.unknownLines = []
    }

    /// Parses the value of an m= line: `<media> <port>[/<number of ports>] <proto> <fmt> ...`.
    public init(parsingMediaLine value: String) throws(SDPError) {
        try self.init(mediaLineFields: splitFields(value), value: value)
    }

    /// The m= line from its fields (`splitFields`); `value`, the line's text, names it in errors.
    init(mediaLineFields fields: [String]?, value: @autoclosure () -> String) throws(SDPError) {
        guard let fields, fields.count >= 4 else {
            throw SDPError(.malformedMedia, "expected media, port, protocol and formats", line: "m=" + value())
        }
        guard fields[0].isSDPToken, fields[2].isSDPField else {
            throw SDPError(.malformedMedia, "media type or protocol is not a token", line: "m=" + value())
        }
        // `<port>` or `<port>/<number of ports>`, read in place.
        let portField = fields[1].utf8
        let slash = portField.firstIndex(of: ASCII.slash)
        let portText = portField[..<(slash ?? portField.endIndex)]
        let countText = slash.map { portField[portField.index(after: $0)...] }
        guard countText?.contains(ASCII.slash) != true, let port = parseDecimal(portText, limit: UInt64(UInt16.max))
        else {
            throw SDPError(.badPort, "port is not a number in 0...65535", line: "m=" + value())
        }
        var portCount: UInt16?
        if let countText {
            guard let count = parseDecimal(countText, limit: UInt64(UInt16.max)), count > 0 else {
                throw SDPError(.badPort, "number of ports is not a number in 1...65535", line: "m=" + value())
            }
            portCount = UInt16(count)
        }
        self.init(
            mediaType: MediaType(rawValue: fields[0]), port: UInt16(port),
            transport: TransportProtocol(rawValue: fields[2]), formats: Array(fields[3...]))
        self.portCount = portCount
    }

    /// The formats as RTP payload types (0...127).
    /// - Throws: `SDPError` with code `malformedMedia` when a format is not a payload type number.
    public var payloadTypes: [UInt8] {
        get throws(SDPError) {
            var types: [UInt8] = []
            types.reserveCapacity(formats.count)
            for format in formats {
                guard let pt = parseDecimal(format, limit: 127) else {
                    throw SDPError(.malformedMedia, "format \(format) is not an RTP payload type", line: mediaLine)
                }
                types.append(UInt8(pt))
            }
            return types
        }
    }

    /// The m= line as written, without the line end.
    public var mediaLine: String {
        var buffer: [UInt8] = []
        serializeMediaLine(into: &buffer)
        return String(decoding: buffer.dropLast(2), as: UTF8.self)
    }

    func serializeMediaLine(into buffer: inout [UInt8]) {
        buffer.append("m=")
        buffer.appendToken(mediaType.rawValue)
        buffer.append(ASCII.space)
        buffer.appendDecimal(port)
        if let portCount {
            buffer.append(ASCII.slash)
            buffer.appendDecimal(portCount)
        }
        buffer.append(ASCII.space)
        buffer.appendField(transport.rawValue)
        for format in formats.isEmpty ? ["-"] : formats {
            buffer.append(ASCII.space)
            buffer.appendField(format)
        }
        buffer.appendLineEnd()
    }

    func serialize(into buffer: inout [UInt8]) {
        serializeMediaLine(into: &buffer)
        unknownLines.serialize(following: "m", into: &buffer)
        if let information {
            buffer.append("i=")
            buffer.appendText(information)
            buffer.appendLineEnd()
        }
        unknownLines.serialize(following: "i", into: &buffer)
        for connection in connections { connection.serialize(into: &buffer) }
        unknownLines.serialize(following: "c", into: &buffer)
        for bandwidth in bandwidths { bandwidth.serialize(into: &buffer) }
        unknownLines.serialize(following: "b", into: &buffer)
        if let key {
            buffer.append("k=")
            buffer.appendText(key)
            buffer.appendLineEnd()
        }
        unknownLines.serialize(following: "k", into: &buffer)
        for attribute in attributes { attribute.serialize(into: &buffer) }
        unknownLines.serialize(following: "a", into: &buffer)
    }
}
