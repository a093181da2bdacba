import SIPMessage

// libFuzzer entry point over the datagram parser, validation, every typed view, the serializer and the
// stream framer. Built only by scripts/fuzz (`--sanitize=fuzzer`); a plain build makes an empty program.

/// Reads every typed view; errors are fine, traps are not.
func touchTypedViews(_ fields: SIPFields) {
    _ = try? fields.via
    _ = try? fields.from
    _ = try? fields.to
    _ = try? fields.callID
    _ = try? fields.cseq
    _ = try? fields.maxForwards
    _ = try? fields.contacts
    _ = try? fields.route
    _ = try? fields.recordRoute
    _ = try? fields.contentType
    _ = try? fields.contentEncoding
    _ = try? fields.contentDisposition
    _ = try? fields.expires
    _ = try? fields.allow
    _ = try? fields.supported
    _ = try? fields.require
    _ = try? fields.wwwAuthenticate
    _ = try? fields.proxyAuthenticate
    _ = try? fields.authorization
    _ = try? fields.authenticationInfo
    _ = try? fields.rack
    _ = try? fields.sessionExpires
    _ = try? fields.minSE
    _ = try? fields.event
    _ = try? fields.subscriptionState
    _ = try? fields.referTo
    _ = try? fields.replaces
    _ = try? fields.reason
    _ = try? fields.retryAfter
    _ = try? fields.pAssertedIdentity
    _ = try? fields.accept
    _ = try? fields.date
    _ = try? fields.timestamp
    _ = try? fields.warning
    // The hot views, which try the fast readers first, give what the general readers alone give.
    if let mismatch = fields.hotViewMismatch() { fatalError("hot view differs: \(mismatch)") }
    // The byte accessors read what the string accessors decode, and fail where they fail.
    let callIDBytes = try? fields.callIDBytes
    let callID = try? fields.callID
    if callIDBytes?.string != callID { fatalError("callIDBytes differs") }
    if let via = try? fields.topVia {
        if via.branchBytes?.string != via.branch { fatalError("branchBytes differs") }
        if via.host.bytes.string != via.host.text { fatalError("host bytes differ") }
    }
    for address in [try? fields.from, try? fields.to].compactMap({ $0 }) {
        if address.tagBytes?.string != address.tag { fatalError("tagBytes differs") }
        if case .sip(let sip) = address.uri, sip.escapedUserBytes?.string != sip.escapedUser {
            fatalError("escapedUserBytes differs")
        }
    }
    for contact in (try? fields.contacts) ?? [] {
        if let uri = contact.uri, case .sip(let sip) = uri {
            _ = sip.user
            _ = sip.transport
            _ = uri.isEquivalent(to: uri)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    if let message = try? Message(parsing: bytes) {
        let valid = (try? message.validate(capabilities: Capabilities())) != nil
        touchTypedViews(message.headerFields)
        let wire = message.serialized()
        // A message that parsed must parse again after it is written.
        guard let again = try? Message(parsing: wire) else { fatalError("round trip failed to parse") }
        if valid, again.serialized() != wire { fatalError("second serialization differs") }
    }
    _ = try? URI(String(decoding: bytes, as: UTF8.self))

    // The same bytes as a stream, split at a point derived from the input.
    var framer = StreamFramer(limits: ParserLimits(maximumMessageSize: 8192))
    let split = Int(bytes[0]) % (size + 1)
    for chunk in [bytes[0..<split], bytes[split...]] {
        framer.append(chunk)
        var budget = size + 4
        while budget > 0, let output = framer.next() {
            budget -= 1
            if case .message(let m) = output { touchTypedViews(m.headerFields) }
            if case .needMore = output { break }
            if case .close = output { break }
        }
        if budget == 0 { fatalError("framer made no progress") }
    }
    return 0
}
