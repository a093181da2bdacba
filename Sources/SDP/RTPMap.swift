/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]` (RFC 8866 §6.6): what a
/// dynamic (or static) RTP payload type stands for. For audio the encoding parameter is the channel count.
public struct RTPMap: SDPAttributeValue {
    public static let attributeName = "rtpmap"

    /// The RTP payload type, 0...127.
    public var payloadType: UInt8
    /// The encoding name as written (`opus`, `PCMU`, `telephone-event`); compare ignoring case.
    public var encodingName: String
    /// The RTP clock rate in Hz.
    public var clockRate: UInt32
    /// The channel count, when written; RFC 8866 §6.6 makes 1 the default for audio.
    public var channels: Int?

    /// - Parameters:
    ///   - payloadType: the RTP payload type.
    ///   - encodingName: the encoding name.
    ///   - clockRate: the clock rate in Hz.
    ///   - channels: the channel count, or `nil` to leave it out.
    public init(payloadType: UInt8, encodingName: String, clockRate: UInt32, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        var scanner = SDPScanner(value)
        guard let pt = scanner.readNumber(limit: 127) else {
            throw RTPMap.malformed(value, "payload type is not a number in 0...127")
        }
        guard scanner.skipWhitespace(), let name = scanner.read(while: { $0.isTokenChar && $0 != ASCII.slash }),
            scanner.consume(ASCII.slash)
        else {
            throw RTPMap.malformed(value, "expected <encoding name>/<clock rate>")
        }
        guard let rate = scanner.readNumber(limit: UInt64(UInt32.max)), rate > 0 else {
            throw RTPMap.malformed(value, "clock rate is not a positive number")
        }
        var channels: Int?
        if scanner.consume(ASCII.slash) {
            guard let count = scanner.readNumber(limit: 255), count > 0 else {
                throw RTPMap.malformed(value, "channel count is not a number in 1...255")
            }
            channels = Int(count)
        }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw RTPMap.malformed(value, "unexpected text after the clock rate") }
        self.init(
            payloadType: UInt8(pt), encodingName: scanner.string(name), clockRate: UInt32(rate), channels: channels)
    }

    public var attributeValue: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodingName.utf8.count + 16)
        bytes.appendDecimal(payloadType)
        bytes.append(ASCII.space)
        bytes.append(contentsOf: encodingName.utf8)
        bytes.append(ASCII.slash)
        bytes.appendDecimal(clockRate)
        if let channels {
            bytes.append(ASCII.slash)
            bytes.appendDecimal(channels)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The channel count, 1 when not written.
    public var channelCount: Int { channels ?? 1 }

    /// The static audio payload types of RFC 3551 §6 (Table 4), for m= formats that come without an rtpmap.
    public static func staticAudio(_ payloadType: UInt8) -> RTPMap? {
        let entry: (String, UInt32, Int?)
        switch payloadType {
        case 0: entry = ("PCMU", 8000, nil)
        case 3: entry = ("GSM", 8000, nil)
        case 4: entry = ("G723", 8000, nil)
        case 5: entry = ("DVI4", 8000, nil)
        case 6: entry = ("DVI4", 16000, nil)
        case 7: entry = ("LPC", 8000, nil)
        case 8: entry = ("PCMA", 8000, nil)
        case 9: entry = ("G722", 8000, nil)
        case 10: entry = ("L16", 44100, 2)
        case 11: entry = ("L16", 44100, nil)
        case 12: entry = ("QCELP", 8000, nil)
        case 13: entry = ("CN", 8000, nil)
        case 14: entry = ("MPA", 90000, nil)
        case 15: entry = ("G728", 8000, nil)
        case 16: entry = ("DVI4", 11025, nil)
        case 17: entry = ("DVI4", 22050, nil)
        case 18: entry = ("G729", 8000, nil)
        default: return nil
        }
        return RTPMap(payloadType: payloadType, encodingName: entry.0, clockRate: entry.1, channels: entry.2)
    }
}
