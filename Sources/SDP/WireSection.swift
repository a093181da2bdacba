// Reading a scanned offer in place for `OfferAnswer+WireAnswer.swift`: one media section's m= line, the
// attributes the answer depends on and its formats, each read exactly as the typed views read them.

/// A scanned offer's bytes and lines, while its bytes are held (inside `withUnsafeBufferPointer`).
struct WireOffer {
    let bytes: UnsafeBufferPointer<UInt8>
    let lines: [WireStorage.Line]

    /// Whether any line is an `a=fingerprint` (RFC 8122): a DTLS-SRTP offer, in whatever profile.
    var hasFingerprint: Bool {
        lines.contains { $0.type == UInt8(ascii: "a") && bytes.equals($0.name, ignoringCase: "fingerprint") }
    }

    /// The first line of `type` in `range` of `lines`.
    func firstLine(_ type: Unicode.Scalar, in range: Range<Int>) -> WireStorage.Line? {
        let letter = UInt8(ascii: type)
        // Through a buffer pointer, checked against the range once: no bounds check per line.
        return lines.withUnsafeBufferPointer { lines in
            guard range.lowerBound >= 0, range.upperBound <= lines.count else { return nil }
            for i in range where lines[i].type == letter { return lines[i] }
            return nil
        }
    }

    /// The first direction attribute in `range` of `lines` (RFC 8866 §6.7), as `direction` reads it.
    func direction(in range: Range<Int>) -> MediaDirection? {
        for i in range where lines[i].type == UInt8(ascii: "a") && lines[i].value == nil {
            if let direction = lines[i].kind.direction { return direction }
        }
        return nil
    }

    /// The address of a c= line (its third field).
    func address(of line: WireStorage.Line) -> Range<Int>? {
        var fields = FieldCursor(bytes, line.range)
        _ = fields.next()
        _ = fields.next()
        return fields.next()
    }
}

/// The attributes the answer reads, as the scan classifies a= lines.
enum AttributeKind: UInt8 {
    case other
    case rtpmap, fmtp, rtcp, rtcpMux, ptime, mid, crypto
    case sendrecv, sendonly, recvonly, inactive

    /// The kind of an attribute name (a token) of `length` bytes whose first eight bytes, each ORed with 0x20,
    /// make `word` (the first lowest): the name compared ignoring ASCII case. No other token folds to one of the
    /// names below, since they hold only lower-case letters and `-`.
    init(folded word: UInt64, length: Int) {
        guard length >= 3, length <= 8 else {
            self = .other
            return
        }
        switch word {
        case 0x7061_6D70_7472: self = .rtpmap  // "rtpmap"
        case 0x7074_6D66: self = .fmtp  // "fmtp"
        case 0x7063_7472: self = .rtcp  // "rtcp"
        case 0x7875_6D2D_7063_7472: self = .rtcpMux  // "rtcp-mux"
        case 0x65_6D69_7470: self = .ptime  // "ptime"
        case 0x64_696D: self = .mid  // "mid"
        case 0x6F74_7079_7263: self = .crypto  // "crypto"
        case 0x7663_6572_646E_6573: self = .sendrecv  // "sendrecv"
        case 0x796C_6E6F_646E_6573: self = .sendonly  // "sendonly"
        case 0x796C_6E6F_7663_6572: self = .recvonly  // "recvonly"
        case 0x6576_6974_6361_6E69: self = .inactive  // "inactive"
        default: self = .other
        }
    }

    /// The direction a direction attribute names.
    var direction: MediaDirection? {
        switch self {
        case .sendrecv: .sendrecv
        case .sendonly: .sendonly
        case .recvonly: .recvonly
        case .inactive: .inactive
        default: nil
        }
    }
}

/// What the answer reads from a section's attributes, each as the typed view reads the first (or every) one; the
/// section is left to the model path (`nil`) where a typed view would throw.
/// What `WireSection.withOffered(_:)` reads of a section. A struct rather than a tuple: an optional tuple is destroyed
/// through the library's generic code, which looks the tuple's type up at run time on every call.
/// Its formats are held by `WireSection.withOffered(_:)`, valid only inside it.
struct OfferedSection {
    var facts: AttributeFacts
    var formats: UnsafeBufferPointer<WireFormat>
}

struct AttributeFacts {
    var isRTCPMuxed = false
    /// The first a=rtcp, when there is one: its value (`nil` inside: none).
    var rtcp: Range<Int>??
    var packetTime: Int?
    var mid: Range<Int>?
    var direction: MediaDirection?
}

/// A format of the offered m= line, with its rtpmap (or the static one) and fmtp, as `RTPFormat` holds it: plain
/// values and ranges into the offer, nothing to retain.
struct WireFormat {
    var payloadType: UInt8
    /// The encoding name in the offer's rtpmap; `nil` for the static mapping of `payloadType`.
    var name: Range<Int>?
    /// The encoding name (the rtpmap's or the static one) in words, when it has 16 bytes or fewer.
    var nameKey: EncodingNameKey?
    var clockRate: UInt32 = 0
    var channelCount = 1
    /// Whether an rtpmap or the static table gave the name, rate and channel count.
    var isMapped = false
    /// The fmtp's parameter string, when there is an fmtp.
    var parameters: Range<Int>?
    var isTelephoneEvent = false

    init(payloadType: UInt8) {
        self.payloadType = payloadType
    }

    /// Takes the static mapping when no rtpmap gave one, and works out telephone-event; false when the format
    /// has no known meaning (it is then left out).
    mutating func finish(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if !isMapped {
            guard let known = RTPMap.staticAudio(payloadType) else { return false }
            clockRate = known.clockRate
            channelCount = known.channelCount
            nameKey = EncodingNameKey(known.encodingName)
            isMapped = true
        }
        isTelephoneEvent = nameEquals(.telephoneEvent, "telephone-event", in: bytes)
        return true
    }

    /// For telephone-event: the events offered (0-15 without an fmtp or parameters), `nil` when the list is
    /// malformed (`TelephoneEvents(formatParameters:)`).
    func events(in bytes: UnsafeBufferPointer<UInt8>) -> TelephoneEvents? {
        guard let parameters, !parameters.isEmpty else { return .default }
        return TelephoneEvents(parsing: bytes, parameters)
    }

    /// True when the name is `other` (whose key is `key`) ignoring ASCII case.
    func nameEquals(_ key: EncodingNameKey?, _ other: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let nameKey, let key { return nameKey.equalsIgnoringCase(key) }
        if let name { return bytes.equals(name, ignoringCase: other) }
        let known = RTPMap.staticAudio(payloadType)?.encodingName ?? ""
        return other.withUTF8Buffer { text in
            known.utf8.elementsEqual(text) { $0.lowercasedASCII == $1.lowercasedASCII }
        }
    }

    func nameEquals(_ other: String, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let name { return bytes.equals(name, ignoringCaseOf: other) }
        return (RTPMap.staticAudio(payloadType)?.encodingName ?? "").equalsIgnoringASCIICase(other)
    }

    /// `RTPMap.isSameCodec(as:)` against one of our codecs, `codecs[index]`, read field by field (a whole `Codec`
    /// copied retains all it holds).
    func isSameCodec(as codecs: UnsafeBufferPointer<Codec>, _ index: Int, in bytes: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard clockRate == codecs[index].clockRate else { return false }
        if let nameKey, let ours = codecs[index].traits.nameKey {
            // Keys are made for every name of 1 to 16 bytes: two keys compare as the names do.
            guard nameKey.equalsIgnoringCase(ours) else { return false }
        } else {
            guard nameEquals(codecs[index].encodingName, in: bytes) else { return false }
        }
        return channelCount == codecs[index].channels || nameEquals(.opus, "opus", in: bytes)
    }
}

extension WireOffer {
    /// The media sections, one per m= line in order, the first beginning at `sessionEnd`.
    func sections(from sessionEnd: Int) -> WireSections { WireSections(offer: self, sessionEnd: sessionEnd) }
}

/// The media sections of a scanned description, read in place one after another.
struct WireSections: Sequence, IteratorProtocol {
    let offer: WireOffer
    let sessionEnd: Int
    private var start: Int
    private var index = 0

    init(offer: WireOffer, sessionEnd: Int) {
        self.offer = offer
        self.sessionEnd = sessionEnd
        self.start = sessionEnd
    }

    mutating func next() -> WireSection? {
        let lines = offer.lines
        guard start < lines.count else { return nil }
        var end = start + 1
        while end < lines.count, lines[end].type != UInt8(ascii: "m") { end += 1 }
        let section = WireSection(offer: offer, lines: start..<end, index: index, sessionEnd: sessionEnd)
        start = end
        index += 1
        return section
    }
}

/// One media section of a scanned offer: its m= line read, its other lines in place.
struct WireSection {
    let offer: WireOffer
    /// The section's lines in `offer.lines`, the m= line first.
    let lines: Range<Int>
    /// The index of the section among the offer's m= lines.
    let index: Int
    /// Where the offer's session-level lines end in `offer.lines` (its first m= line).
    let sessionEnd: Int
    let mediaType: Range<Int>
    let port: UInt64
    let transport: Range<Int>
    /// From the first format to the end of the m= line.
    let formatList: Range<Int>

    init(offer: WireOffer, lines: Range<Int>, index: Int, sessionEnd: Int) {
        self.offer = offer
        self.lines = lines
        self.index = index
        self.sessionEnd = sessionEnd
        let line = offer.lines[lines.lowerBound].range
        var fields = FieldCursor(offer.bytes, line)
        let empty = line.upperBound..<line.upperBound
        mediaType = fields.next() ?? empty
        let portField = fields.next() ?? empty
        let slash = offer.bytes.firstIndex(of: ASCII.slash, in: portField)
        port = offer.bytes.decimal(portField.lowerBound..<slash) ?? 0
        transport = fields.next() ?? empty
        formatList = (fields.next()?.lowerBound ?? line.upperBound)..<line.upperBound
    }

    var isAudio: Bool {
        // "audio", one word compare where the line goes on for eight bytes (it always does: the port follows).
        if let equal = offer.bytes.equals(mediaType, word: 0x6F_6964_7561, letters: 0x20_2020_2020, length: 5) {
            return equal
        }
        return offer.bytes.equals(mediaType, ignoringCase: "audio")
    }

    /// `TransportProtocol.isSecureRTP`: false for RTP/AVP(F), true for RTP/SAVP(F), `nil` for anything else.
    var isSecureRTP: Bool? {
        let bytes = offer.bytes
        // RTP/AVP, RTP/AVPF and RTP/SAVP with one word compare each where eight bytes follow the transport's start
        // (the formats do); RTP/SAVPF, at nine bytes, byte by byte.
        let letters: UInt64 = 0x2020_2020_0020_2020
        if let avp = bytes.equals(transport, word: 0x70_7661_2F70_7472, letters: letters, length: 7),
            let avpf = bytes.equals(transport, word: 0x6670_7661_2F70_7472, letters: letters, length: 8),
            let savp = bytes.equals(transport, word: 0x7076_6173_2F70_7472, letters: letters, length: 8)
        {
            if avp || avpf { return false }
            if savp || bytes.equals(transport, ignoringCase: "RTP/SAVPF") { return true }
            return nil
        }
        if bytes.equals(transport, ignoringCase: "RTP/AVP") || bytes.equals(transport, ignoringCase: "RTP/AVPF") {
            return false
        }
        if bytes.equals(transport, ignoringCase: "RTP/SAVP") || bytes.equals(transport, ignoringCase: "RTP/SAVPF") {
            return true
        }
        return nil
    }

    /// The rejected copy of the m= line (`OfferAnswer.rejected(_:)`): port 0, single spaces.
    func writeRejected(into writer: inout WireWriter) {
        writer.begin("m")
        writer.append(offer.bytes, mediaType)
        writer.append(" 0 ")
        writer.append(offer.bytes, transport)
        var formats = FieldCursor(offer.bytes, formatList)
        while let format = formats.next() {
            writer.append(ASCII.space)
            writer.append(offer.bytes, format)
        }
        writer.end()
    }

    /// The answer's m= line: our port, the offered media type and transport, the payload types of `formats`
    /// then of `events`.
    func writeMediaLine(
        port: UInt16, formats: UnsafeBufferPointer<WireFormat>, common: UnsafeBufferPointer<(codec: Int, format: Int)>,
        events: UnsafeBufferPointer<CommonEvent>, into writer: inout WireWriter
    ) {
        writer.begin("m")
        writer.append(offer.bytes, mediaType)
        writer.append(ASCII.space)
        writer.appendDecimal(port)
        writer.append(ASCII.space)
        writer.append(offer.bytes, transport)
        for (_, format) in common {
            writer.append(ASCII.space)
            writer.appendDecimal(formats[format].payloadType)
        }
        for event in events {
            writer.append(ASCII.space)
            writer.appendDecimal(formats[event.format].payloadType)
        }
        writer.end()
    }

    /// The a=crypto lines, as `attributes(named:)` gives them.
    func cryptoAttributes() -> [Attribute] {
        var found: [Attribute] = []
        for i in lines where offer.lines[i].type == UInt8(ascii: "a") && offer.lines[i].kind == .crypto {
            let line = offer.lines[i]
            found.append(Attribute(offer.bytes.string(line.name), line.value.map { offer.bytes.string($0) }))
        }
        return found
    }

    /// The attributes the answer reads and the formats as `RTPFormat.formats(of:)` lists them, from one pass
    /// over the a= lines; `nil` where a typed view would throw: an rtpmap or fmtp that does not parse (`rtpMaps`,
    /// `formatParameters`), a format that is no payload type (`payloadTypes`), a bad first ptime or mid.
    /// `body` of what `offered(into:)` reads, the formats on the stack; `nil` where a typed view would throw.
    func withOffered<Result>(_ body: (OfferedSection) -> Result?) -> Result? {
        // Room for every format of the m= line: each takes a byte and a separator (the last none), and there are
        // no more than the 128 payload types, each kept once.
        let capacity = Swift.max(1, Swift.min(128, (formatList.count + 1) / 2))
        return withUnsafeTemporaryAllocation(of: WireFormat.self, capacity: capacity) { buffer in
            guard let offered = offered(into: buffer) else { return nil }
            return body(offered)
        }
    }

    /// Reads the formats into `buffer` (room for one per format of the m= line; no deinitialization needed).
    private func offered(into buffer: UnsafeMutableBufferPointer<WireFormat>) -> OfferedSection? {
        // The payload types in order, without repeats; each takes its first rtpmap and fmtp below.
        var count = 0
        var fields = FieldCursor(offer.bytes, formatList)
        while let field = fields.next() {
            guard let number = offer.bytes.decimal(field, limit: 127) else { return nil }
            let pt = UInt8(number)
            if !buffer[..<count].contains(where: { $0.payloadType == pt }) {
                // Cannot happen (room for every field); left to the model path all the same.
                guard count < buffer.count else { return nil }
                buffer.initializeElement(at: count, to: WireFormat(payloadType: pt))
                count += 1
            }
        }
        let formats = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
        var facts = AttributeFacts()
        var hasPacketTime = false
        var hasMid = false
        for i in lines where offer.lines[i].type == UInt8(ascii: "a") {
            let line = offer.lines[i]
            let value = line.value
            switch line.kind {
            case .rtpmap:
                guard let value, let map = rtpMap(value) else { return nil }
                if let f = formats.firstIndex(where: { $0.payloadType == map.payloadType }), !formats[f].isMapped {
                    formats[f].name = map.name
                    formats[f].nameKey = map.name.count <= 16 ? EncodingNameKey(token: offer.bytes, map.name) : nil
                    formats[f].clockRate = map.clockRate
                    formats[f].channelCount = map.channels
                    formats[f].isMapped = true
                }
            case .fmtp:
                guard let value, let fmtp = formatParameters(value) else { return nil }
                if let pt = canonicalPayloadType(fmtp.format),
                    let f = formats.firstIndex(where: { $0.payloadType == pt }), formats[f].parameters == nil
                {
                    formats[f].parameters = fmtp.parameters
                }
            case .rtcpMux:
                facts.isRTCPMuxed = true
            case .rtcp:
                if facts.rtcp == nil { facts.rtcp = .some(value) }
            case .ptime:
                guard !hasPacketTime else { continue }
                hasPacketTime = true
                guard let value, let time = milliseconds(value) else { return nil }
                facts.packetTime = time
            case .mid:
                guard !hasMid else { continue }
                hasMid = true
                guard let value, offer.bytes.isToken(value) else { return nil }
                facts.mid = value
            case .sendrecv, .sendonly, .recvonly, .inactive:
                if value == nil, facts.direction == nil { facts.direction = line.kind.direction }
            case .crypto, .other:
                continue
            }
        }
        // In place: a format without a known meaning is dropped, the rest move up only when one was.
        let bytes = offer.bytes
        var kept = 0
        for i in formats.indices where formats[i].finish(in: bytes) {
            if kept != i { formats[kept] = formats[i] }
            kept += 1
        }
        return OfferedSection(facts: facts, formats: UnsafeBufferPointer(rebasing: formats[..<kept]))
    }

    /// The fmtp parameter string of a format as a string (`parameters?.parameterString`).
    func parameterString(_ format: WireFormat) -> String? {
        format.parameters.map { offer.bytes.string($0) }
    }

    /// The direction the offer gives this section, with an unspecified address taken as "do not send to me"
    /// (`OfferAnswer.remoteDirection(of:at:)`).
    /// `connection` is `connectionAddress`.
    func remoteDirection(_ facts: AttributeFacts, connection: Range<Int>?) -> MediaDirection {
        let stated = facts.direction ?? offer.direction(in: 0..<sessionEnd) ?? .sendrecv
        guard let address = connection, isUnspecified(address) else { return stated }
        return MediaDirection(sends: stated.sends, receives: false)
    }

    /// Where to send RTP and RTCP (`OfferAnswer.remoteAddresses(in:at:isRTCPMuxed:)`); `nil` when a=rtcp does
    /// not parse. `connection` is `connectionAddress`.
    func remoteAddresses(_ facts: AttributeFacts, connection: Range<Int>?, isRTCPMuxed: Bool) -> (
        rtp: NegotiatedSession.TransportAddress?, rtcp: NegotiatedSession.TransportAddress?
    )? {
        guard port != 0, port <= UInt64(UInt16.max), let address = connection, !isUnspecified(address) else {
            return (nil, nil)
        }
        let host = offer.bytes.string(address)
        let rtp = NegotiatedSession.TransportAddress(host: host, port: UInt16(port))
        if isRTCPMuxed { return (rtp, rtp) }
        if case .some(let value) = facts.rtcp {
            // The usual a=rtcp, a port alone: the RTP host with that port.
            if let port = rtcpPort(value) { return (rtp, NegotiatedSession.TransportAddress(host: host, port: port)) }
            guard let rtcp = rtcpAttribute(value) else { return nil }
            if rtcp.connection?.isUnspecified == true { return (rtp, nil) }
            return (rtp, NegotiatedSession.TransportAddress(host: rtcp.connection?.address ?? host, port: rtcp.port))
        }
        guard port < UInt64(UInt16.max) else { return (rtp, nil) }
        return (rtp, NegotiatedSession.TransportAddress(host: host, port: UInt16(port) + 1))
    }

    // MARK: Reading values

    /// The address of the c= line that applies: the section's first, else the session's.
    var connectionAddress: Range<Int>? {
        guard let line = offer.firstLine("c", in: lines) ?? offer.firstLine("c", in: 0..<sessionEnd) else {
            return nil
        }
        return offer.address(of: line)
    }

    /// `Connection.isUnspecified`.
    private func isUnspecified(_ address: Range<Int>) -> Bool {
        offer.bytes.equals(address, "0.0.0.0") || offer.bytes.equals(address, "::")
            || offer.bytes.equals(address, "0:0:0:0:0:0:0:0")
    }

    /// The port of an a=rtcp that is a port alone (as `RTCPAttribute(parsingAttributeValue:)` reads it); `nil`
    /// for anything else.
    private func rtcpPort(_ value: Range<Int>?) -> UInt16? {
        guard let value else { return nil }
        // The usual value, digits alone: the one field, read without walking fields.
        if let port = offer.bytes.decimal(value, limit: UInt64(UInt16.max)) { return UInt16(port) }
        var fields = FieldCursor(offer.bytes, value)
        guard let port = fields.next(), fields.next() == nil, fields.isValid else { return nil }
        return offer.bytes.decimal(port, limit: UInt64(UInt16.max)).map { UInt16($0) }
    }

    /// `RTCPAttribute(parsingAttributeValue:)` of `value ?? ""`: a port alone is read in place.
    private func rtcpAttribute(_ value: Range<Int>?) -> RTCPAttribute? {
        guard let value else { return nil }
        var fields = FieldCursor(offer.bytes, value)
        if let port = fields.next(), fields.next() == nil, fields.isValid {
            return offer.bytes.decimal(port, limit: UInt64(UInt16.max)).map { RTCPAttribute(port: UInt16($0)) }
        }
        return try? RTCPAttribute(parsingAttributeValue: offer.bytes.string(value))
    }

    /// `RTPMap(parsingAttributeValue:)`: payload type, encoding name, clock rate, channel count.
    private func rtpMap(_ value: Range<Int>) -> (
        payloadType: UInt8, name: Range<Int>, clockRate: UInt32, channels: Int
    )? {
        let p = offer.bytes
        let end = value.upperBound
        let (payloadType, digits) = p.digitRun(from: value.lowerBound, to: end, limit: 127)
        guard let pt = payloadType else { return nil }
        let nameStart = p.end(of: digits..<end, while: { $0.isSDPWhitespace })
        guard nameStart > digits else { return nil }
        let nameEnd = p.end(of: nameStart..<end) { $0.isTokenChar && $0 != ASCII.slash }
        guard nameEnd > nameStart, nameEnd < end, p[nameEnd] == ASCII.slash else { return nil }
        let (clockRate, rateEnd) = p.digitRun(from: nameEnd + 1, to: end, limit: UInt64(UInt32.max))
        guard let rate = clockRate, rate > 0 else { return nil }
        var channels = 1
        var i = rateEnd
        if i < end, p[i] == ASCII.slash {
            let (channelCount, countEnd) = p.digitRun(from: i + 1, to: end, limit: 255)
            guard let count = channelCount, count > 0 else { return nil }
            channels = Int(count)
            i = countEnd
        }
        guard p.end(of: i..<end, while: { $0.isSDPWhitespace }) == end else { return nil }
        return (UInt8(pt), nameStart..<nameEnd, UInt32(rate), channels)
    }

    /// `FormatParameters(parsingAttributeValue:)`: the format and the parameter string.
    private func formatParameters(_ value: Range<Int>) -> (format: Range<Int>, parameters: Range<Int>)? {
        let p = offer.bytes
        let formatEnd = p.end(of: value, while: { $0.isFieldChar })
        guard formatEnd > value.lowerBound else { return nil }
        let parametersStart = p.end(of: formatEnd..<value.upperBound, while: { $0.isSDPWhitespace })
        guard formatEnd == value.upperBound || parametersStart > formatEnd else { return nil }
        return (value.lowerBound..<formatEnd, parametersStart..<value.upperBound)
    }

    /// The payload type an fmtp's format names when it is written as `String(pt)` writes it (no sign, no leading
    /// zero); `nil` otherwise (no format of the m= line then matches it).
    private func canonicalPayloadType(_ range: Range<Int>) -> UInt8? {
        guard !range.isEmpty, range.count <= 3, offer.bytes[range.lowerBound] != ASCII.zero || range.count == 1,
            let value = offer.bytes.decimal(range, limit: 127)
        else { return nil }
        return UInt8(value)
    }

    /// The `milliseconds` of a=ptime: a number up to 100000, an optional fraction dropped.
    private func milliseconds(_ value: Range<Int>) -> Int? {
        let p = offer.bytes
        let digits = p.end(of: value, while: { $0.isDigit })
        guard let whole = p.decimal(value.lowerBound..<digits, limit: 100_000) else { return nil }
        var i = digits
        if i < value.upperBound, p[i] == ASCII.dot { i = p.end(of: (i + 1)..<value.upperBound, while: { $0.isDigit }) }
        guard i == value.upperBound else { return nil }
        return Int(whole)
    }
}
