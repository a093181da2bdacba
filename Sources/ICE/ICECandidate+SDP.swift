import STUN

extension ICECandidate {
    /// Parses the value of an `a=candidate` attribute (RFC 8839 §5.1):
    /// `foundation component transport priority address port typ type [raddr a rport p] *(name value)`.
    ///
    /// A leading `a=candidate:` or `candidate:` is skipped. `generation` is read into ``generation``; other
    /// extension pairs are kept in order. The connection address must be an IP address: FQDN and mDNS candidates
    /// throw ``ICESDPError/Code/badAddress`` so that the caller can skip them, as RFC 8839 allows.
    /// - Throws: ``ICESDPError`` naming the first fault.
    public init(sdpValue: String, limits: ICESDPLimits = ICESDPLimits()) throws(ICESDPError) {
        guard sdpValue.utf8.count <= limits.maximumValueLength + 12 else {
            throw ICESDPError(.tooLong, "\(sdpValue.utf8.count) bytes")
        }
        var text = Substring(sdpValue)
        for prefix in ["a=candidate:", "candidate:"] where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
            break
        }
        guard text.utf8.count <= limits.maximumValueLength else {
            throw ICESDPError(.tooLong, "\(text.utf8.count) bytes")
        }
        let fields = text.split(separator: " ")
        guard fields.count >= 8 else { throw ICESDPError(.missingField, "\(fields.count) fields, 8 needed") }
        guard ICEGrammar.isIceChars(fields[0], count: 1...32) else { throw ICESDPError(.badFoundation) }
        guard let component = ICEGrammar.decimal(fields[1], digits: 3), (1...256).contains(component) else {
            throw ICESDPError(.badComponent, String(fields[1].prefix(8)))
        }
        guard ICEGrammar.isToken(fields[2]) else { throw ICESDPError(.badTransport) }
        guard let priority = ICEGrammar.decimal(fields[3], digits: 10), priority <= UInt64(UInt32.max) else {
            throw ICESDPError(.badPriority, String(fields[3].prefix(12)))
        }
        guard let ip = ICEGrammar.ipAddress(fields[4]) else {
            throw ICESDPError(.badAddress, String(fields[4].prefix(64)))
        }
        guard let port = ICEGrammar.port(fields[5]) else { throw ICESDPError(.badPort, String(fields[5].prefix(8))) }
        guard fields[6] == "typ", ICEGrammar.isToken(fields[7]) else { throw ICESDPError(.badType) }
        let rest = try Self.parseTail(fields[8...], limits: limits)
        self.init(
            foundation: String(fields[0]), component: Int(component),
            transport: ICETransportProtocol(name: String(fields[2])),
            priority: UInt32(priority), address: STUNTransportAddress(address: ip, port: port),
            type: ICECandidateType(name: String(fields[7])), relatedAddress: rest.related, generation: rest.generation,
            extensions: rest.extensions)
    }

    private struct Tail {
        var related: STUNTransportAddress?
        var generation: Int?
        var extensions: [ICECandidateExtension] = []
    }

    /// `raddr`/`rport` (wherever they are among the pairs), `generation`, then the rest.
    private static func parseTail(_ fields: ArraySlice<Substring>, limits: ICESDPLimits) throws(ICESDPError) -> Tail {
        guard fields.count % 2 == 0 else { throw ICESDPError(.badExtension, "a name without a value") }
        var tail = Tail()
        var raddr: STUNIPAddress?
        var rport: UInt16?
        var index = fields.startIndex
        while index < fields.endIndex {
            let name = fields[index]
            let value = fields[index + 1]
            index += 2
            switch name {
            case "raddr":
                guard raddr == nil, let ip = ICEGrammar.ipAddress(value) else { throw ICESDPError(.badRelatedAddress) }
                raddr = ip
            case "rport":
                guard rport == nil, let port = ICEGrammar.port(value) else { throw ICESDPError(.badRelatedAddress) }
                rport = port
            case "generation":
                guard tail.generation == nil, let number = ICEGrammar.decimal(value, digits: 9) else {
                    throw ICESDPError(.badGeneration)
                }
                tail.generation = Int(number)
            default:
                guard ICEGrammar.isToken(name), ICEGrammar.isByteString(value) else {
                    throw ICESDPError(.badExtension, String(name.prefix(32)))
                }
                guard tail.extensions.count < limits.maximumExtensions else {
                    throw ICESDPError(.tooMany, "more than \(limits.maximumExtensions) extensions")
                }
                tail.extensions.append(ICECandidateExtension(name: String(name), value: String(value)))
            }
        }
        switch (raddr, rport) {
        case (nil, nil): break
        case (let address?, let port?): tail.related = STUNTransportAddress(address: address, port: port)
        default: throw ICESDPError(.badRelatedAddress, "raddr and rport go together")
        }
        return tail
    }

    /// The value of the `a=candidate` attribute (without `candidate:`), as ``init(sdpValue:limits:)`` reads it:
    /// related address first, then `generation`, then the other extensions in order.
    public var sdpValue: String {
        var out = "\(foundation) \(component) \(transport.name) \(priority) \(ICEGrammar.text(address.address))"
        out += " \(address.port) typ \(type.name)"
        if let relatedAddress {
            out += " raddr \(ICEGrammar.text(relatedAddress.address)) rport \(relatedAddress.port)"
        }
        if let generation { out += " generation \(generation)" }
        for item in extensions { out += " \(item.name) \(item.value)" }
        return out
    }
}

extension ICECandidate: CustomStringConvertible {
    /// `candidate:` and ``sdpValue``.
    public var description: String { "candidate:" + sdpValue }
}
