extension NameAddress {
    /// `[ quoted-string ] "<" SIP-URI ">" *( ";" generic-param )` from the scanner's position, for the usual
    /// shape only: no white space but between the display name and `<`, a quoted display name without escapes
    /// or folds, a URI that `SIPURI.fastLayout` reads, and parameters that `fastHeaderParameters` reads. Returns
    /// `nil`, with the scanner where it was, for anything else: `parse` then reads the value in full and gives
    /// the same address, or the error.
    @inline(__always)
    static func parseFast(_ scanner: inout ByteScanner) -> NameAddress? {
        guard let (display, layout, parametersStart) = fastShape(scanner) else { return nil }
        return finishFast(
            &scanner, start: scanner.index, display: display, layout: layout, parametersStart: parametersStart)
    }

    /// The URI alone of the address `parseFast` reads, its parameters checked as `parseFast` checks them but
    /// not kept: no address is made. `nil`, with the scanner where it was, exactly where `parseFast` gives `nil`.
    @inline(__always)
    static func parseFastURI(_ scanner: inout ByteScanner) -> SIPURI? {
        guard let (_, layout, parametersStart) = fastShape(scanner) else { return nil }
        var unused = false
        guard
            let parametersEnd = ByteScanner.fastHeaderParameters(
                scanner.bytes, from: parametersStart, to: scanner.end, state: &unused,
                inspect: { _, _, _, _ in true })
        else { return nil }
        scanner.index = parametersEnd
        return SIPURI(source: scanner.owner, layout: layout)
    }

    /// `parseFast`'s reading up to the header parameters, from the scanner's position: the display name, the
    /// URI's layout and where the parameters begin; `nil` for anything else.
    @inline(__always)
    private static func fastShape(_ scanner: ByteScanner) -> (DisplayName, SIPURILayout, parametersStart: Int)? {
        let bytes = scanner.bytes
        let start = scanner.index
        let end = scanner.end
        guard start < end else { return nil }
        var i = start
        var display = DisplayName.none
        if bytes[i] == ASCII.quote {
            let k = ByteScanner.skip(bytes, from: i &+ 1, to: end, while: { $0.isIn(.quotedText) })
            guard k < end, bytes[k] == ASCII.quote else { return nil }
            display = .quoted(ByteRange(start: i, end: k &+ 1))
            i = k &+ 1
            while i < end, bytes[i] == ASCII.space || bytes[i] == ASCII.tab { i &+= 1 }
        } else if bytes[i] != ASCII.lessThan {
            // Tokens then `<` (`Bob Jones <sip:...>`), or an addr-spec (`sip:bob@host;tag=1`).
            guard let (tokens, lessThan) = tokenDisplayName(bytes, from: i, to: end) else {
                return fastAddrSpec(scanner)
            }
            display = .tokens(tokens)
            i = lessThan
        }
        guard i < end, bytes[i] == ASCII.lessThan,
            let (layout, greaterThan) = SIPURI.fastLayoutBeforeGreaterThan(
                bytes, owner: scanner.ownerPointer, i &+ 1, end)
        else { return nil }
        return (display, layout, greaterThan &+ 1)
    }

    /// `*(token LWS)` up to a `<`, with only spaces and tabs between the tokens: the display name's range (first
    /// token to last) and where the `<` is; `nil` for anything else.
    @inline(__always)
    private static func tokenDisplayName(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (
        ByteRange, lessThan: Int
    )? {
        var k = start
        var lastTokenEnd = start
        while k < end {
            let tokenEnd = ByteScanner.skip(bytes, from: k, to: end, while: { $0.isTokenChar })
            guard tokenEnd > k else { break }
            lastTokenEnd = tokenEnd
            k = tokenEnd
            while k < end, bytes[k] == ASCII.space || bytes[k] == ASCII.tab { k &+= 1 }
        }
        guard lastTokenEnd > start, k < end, bytes[k] == ASCII.lessThan else { return nil }
        return (ByteRange(start: start, end: lastTokenEnd), k)
    }

    /// A bare SIP addr-spec: the URI runs to the first `;` or `,` (or the end) and holds no `?` (RFC 3261
    /// §20.10); its layout and where its parameters begin, `nil` for anything else.
    @inline(__always)
    private static func fastAddrSpec(_ scanner: ByteScanner) -> (DisplayName, SIPURILayout, parametersStart: Int)? {
        let bytes = scanner.bytes
        let start = scanner.index
        let end = scanner.end
        var uriEnd = start
        while uriEnd < end {
            let b = bytes[uriEnd]
            if b == ASCII.semicolon || b == ASCII.comma { break }
            // White space (the general reader's) or a header part (an error there).
            guard b > ASCII.space, b != ASCII.question else { return nil }
            uriEnd &+= 1
        }
        guard let layout = SIPURI.fastLayout(bytes, owner: scanner.ownerPointer, start, uriEnd) else { return nil }
        return (.none, layout, uriEnd)
    }

    /// The address with the parameters from `parametersStart`, when `fastHeaderParameters` reads them.
    @inline(__always)
    private static func finishFast(
        _ scanner: inout ByteScanner, start: Int, display: DisplayName, layout: SIPURILayout, parametersStart: Int
    ) -> NameAddress? {
        let bytes = scanner.bytes
        let end = scanner.end
        var tag = KnownParameter.absent
        guard
            let parametersEnd = ByteScanner.fastHeaderParameters(
                bytes, from: parametersStart, to: end, state: &tag,
                inspect: { tag, bytes, name, value in
                    if packedLowercaseToken(bytes, name) == ParameterName.tag { tag.record(value) }
                    return true
                })
        else { return nil }
        scanner.index = parametersEnd
        var result = NameAddress(
            source: scanner.owner, whole: ByteRange(start: start, end: parametersEnd), display: display,
            address: .sip(layout), parameters: ByteRange(start: parametersStart, end: parametersEnd))
        result.tagParameter = tag
        return result
    }
}
