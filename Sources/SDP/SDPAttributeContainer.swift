/// Anything with a= lines: a `SessionDescription` (session level) or a `MediaDescription`. The typed views
/// below parse the raw attributes when asked and throw an `SDPError` (code `malformedAttribute`, naming the
/// line) when a known attribute is malformed; the raw attributes stay the truth.
public protocol SDPAttributeContainer {
    /// The a= lines, in order.
    var attributes: [Attribute] { get set }
}

extension SDPAttributeContainer {
    /// Every attribute called `name` (ignoring ASCII case), in order.
    public func attributes(named name: String) -> [Attribute] {
        attributes.filter { $0.hasName(name) }
    }

    /// The first attribute called `name`.
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.hasName(name) }
    }

    /// True when there is an attribute called `name`.
    public func hasAttribute(named name: String) -> Bool {
        attributes.contains { $0.hasName(name) }
    }

    /// Every value of a typed attribute, in order.
    public func values<T: SDPAttributeValue>(_ type: T.Type) throws(SDPError) -> [T] {
        var values: [T] = []
        for attribute in attributes {
            if let value = try attribute.typedValue(type) { values.append(value) }
        }
        return values
    }

    /// The first value of a typed attribute.
    public func firstValue<T: SDPAttributeValue>(_ type: T.Type) throws(SDPError) -> T? {
        guard let attribute = attribute(named: T.attributeName) else { return nil }
        return try attribute.typedValue(type)
    }

    /// Appends a typed attribute.
    public mutating func append(_ value: some SDPAttributeValue) {
        attributes.append(Attribute(value))
    }

    /// Removes every attribute called `name`.
    public mutating func removeAttributes(named name: String) {
        attributes.removeAll { $0.hasName(name) }
    }

    /// `a=rtpmap` (RFC 8866 §6.6).
    public var rtpMaps: [RTPMap] { get throws(SDPError) { try values(RTPMap.self) } }

    /// `a=fmtp` (RFC 8866 §6.15).
    public var formatParameters: [FormatParameters] { get throws(SDPError) { try values(FormatParameters.self) } }

    /// The rtpmap of `payloadType`, when there is one.
    public func rtpMap(for payloadType: UInt8) throws(SDPError) -> RTPMap? {
        try rtpMaps.first { $0.payloadType == payloadType }
    }

    /// The fmtp of `format`, when there is one.
    public func formatParameters(for format: String) throws(SDPError) -> FormatParameters? {
        try formatParameters.first { $0.format == format }
    }

    /// `a=ptime` in milliseconds (RFC 8866 §6.4); a fraction is dropped.
    public var packetTime: Int? { get throws(SDPError) { try milliseconds("ptime") } }

    /// `a=maxptime` in milliseconds (RFC 8866 §6.5); a fraction is dropped.
    public var maximumPacketTime: Int? { get throws(SDPError) { try milliseconds("maxptime") } }

    /// The first direction attribute (RFC 8866 §6.7); `nil` when there is none.
    public var direction: MediaDirection? { attributes.direction }

    /// Replaces every direction attribute with `direction` (appended last), or removes them for `nil`.
    public mutating func setDirection(_ direction: MediaDirection?) {
        attributes.removeAll { $0.value == nil && MediaDirection(attributeName: $0.name) != nil }
        if let direction { attributes.append(direction.attribute) }
    }

    /// `a=rtcp` (RFC 3605).
    public var rtcp: RTCPAttribute? { get throws(SDPError) { try firstValue(RTCPAttribute.self) } }

    /// True when `a=rtcp-mux` is present (RFC 5761 §5.1.1).
    public var isRTCPMuxed: Bool { hasAttribute(named: "rtcp-mux") }

    /// `a=crypto` (RFC 4568).
    public var cryptos: [CryptoAttribute] { get throws(SDPError) { try values(CryptoAttribute.self) } }

    /// `a=ssrc` (RFC 5576).
    public var ssrcs: [SSRCAttribute] { get throws(SDPError) { try values(SSRCAttribute.self) } }

    /// `a=mid` (RFC 5888 §4): the media stream's identification tag.
    public var mid: String? {
        get throws(SDPError) {
            guard let attribute = attribute(named: "mid") else { return nil }
            guard let value = attribute.value, value.isSDPToken else {
                throw SDPError(.malformedAttribute, "mid: not a token", line: attribute.description)
            }
            return value
        }
    }

    /// `a=setup` (RFC 4145).
    public var setup: SetupRole? { get throws(SDPError) { try firstValue(SetupRole.self) } }

    /// `a=fingerprint` (RFC 8122).
    public var fingerprints: [Fingerprint] { get throws(SDPError) { try values(Fingerprint.self) } }

    private func milliseconds(_ name: String) throws(SDPError) -> Int? {
        guard let attribute = attribute(named: name) else { return nil }
        var scanner = SDPScanner(attribute.value ?? "")
        let whole = scanner.readNumber(limit: 100_000)
        if scanner.consume(ASCII.dot) { _ = scanner.read(while: \.isDigit) }
        guard let whole, scanner.isAtEnd else {
            throw SDPError(.malformedAttribute, "\(name): not a number of milliseconds", line: attribute.description)
        }
        return Int(whole)
    }
}

extension Array where Element == Attribute {
    /// The first direction attribute (RFC 8866 §6.7); `nil` when there is none.
    var direction: MediaDirection? {
        for attribute in self where attribute.value == nil {
            if let direction = MediaDirection(attributeName: attribute.name) { return direction }
        }
        return nil
    }
}
