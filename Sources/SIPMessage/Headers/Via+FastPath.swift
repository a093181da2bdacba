extension Via {
    /// `sent-protocol LWS sent-by *( SEMI via-params )` from the scanner's position, for the usual shape only:
    /// `name/version/transport`, white space, a host, a port right after it, and parameters that
    /// `fastHeaderParameters` reads (checked as `KnownViaParameters` checks them). Returns `nil`, with the scanner
    /// where it was, for anything else: `parse` then reads the value in full and gives the same Via, or the
    /// error.
    @inline(__always)
    static func parseFast(_ scanner: inout ByteScanner) -> Via? {
        let bytes = scanner.bytes
        let start = scanner.index
        let end = scanner.end
        let nameEnd: Int
        let versionEnd: Int
        if Via.startsWithSIPVersion(bytes, start, end) {
            // The usual `SIP/2.0/`, one word: the token-and-slash reads below would find the same two ends.
            nameEnd = start &+ 3
            versionEnd = start &+ 7
        } else {
            nameEnd = ByteScanner.skip(bytes, from: start, to: end, while: { $0.isTokenChar })
            guard nameEnd > start, nameEnd < end, bytes[nameEnd] == ASCII.slash else { return nil }
            versionEnd = ByteScanner.skip(bytes, from: nameEnd &+ 1, to: end, while: { $0.isTokenChar })
            guard versionEnd > nameEnd &+ 1, versionEnd < end, bytes[versionEnd] == ASCII.slash else { return nil }
        }
        let transportEnd = ByteScanner.skip(bytes, from: versionEnd &+ 1, to: end, while: { $0.isTokenChar })
        guard transportEnd > versionEnd &+ 1 else { return nil }
        var i = transportEnd
        while i < end, bytes[i] == ASCII.space || bytes[i] == ASCII.tab { i &+= 1 }
        var hostScanner = ByteScanner(bytes, owner: scanner.ownerPointer, i..<end)
        guard let (host, hostKind) = hostScanner.readUsualHost() else { return nil }
        i = hostScanner.index
        var port: UInt16?
        if i < end {
            let b = bytes[i]
            if b == ASCII.colon {
                // Leading zeros are allowed (`parseDecimal` reads them): no count limit, only the value's.
                guard let (digitsEnd, value) = readDecimal(bytes, from: i &+ 1, to: end, maxDigits: .max, limit: 65535)
                else { return nil }
                port = UInt16(truncatingIfNeeded: value)
                i = digitsEnd
            } else if b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf {
                // White space may come before the ':' of a port.
                return nil
            }
        }
        let parametersStart = i
        var known = KnownViaParameters()
        guard
            let parametersEnd = ByteScanner.fastHeaderParameters(
                bytes, from: parametersStart, to: end, state: &known,
                inspect: { known, bytes, name, value in known.inspect(bytes, name, value) == nil })
        else { return nil }
        scanner.index = parametersEnd
        var via = Via(
            source: scanner.owner, whole: ByteRange(start: start, end: parametersEnd),
            protocolName: ByteRange(start: start, end: nameEnd),
            protocolVersion: ByteRange(start: nameEnd &+ 1, end: versionEnd),
            transport: ByteRange(start: versionEnd &+ 1, end: transportEnd), hostKind: hostKind, host: host, port: port,
            parameters: ByteRange(start: parametersStart, end: parametersEnd))
        via.branchParameter = known.branch
        return via
    }
}

extension Via {
    /// "SIP/2.0/" as a little-endian word.
    static let sipVersionWord: UInt64 = 0x2F30_2E32_2F50_4953

    /// Whether `bytes[start..<end]` is longer than and begins with `SIP/2.0/`, compared as one word.
    @inline(__always)
    static func startsWithSIPVersion(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard start >= 0, end <= bytes.count, end &- start > 8, let base = bytes.baseAddress else { return false }
        return UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)) == sipVersionWord
    }
}
