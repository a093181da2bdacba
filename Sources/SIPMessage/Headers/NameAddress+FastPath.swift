extension NameAddress {
    /// `[ quoted-string ] "<" SIP-URI ">" *( ";" generic-param )` from the scanner's position, for the usual
    /// shape only: no white space but between the display name and `<`, a quoted display name without escapes
    /// or folds, a URI that `SIPURI.fastLayout` reads, and parameters that `fastHeaderParameters` reads. Returns
    /// `nil`, with the scanner where it was, for anything else: `parse` then reads the value in full and gives
    /// the same address, or the error.
    @inline(__always)
    static func parseFast(_ scanner: inout ByteScanner) -> NameAddress? {
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
        }
        guard i < end, bytes[i] == ASCII.lessThan,
            let (layout, greaterThan) = SIPURI.fastLayoutBeforeGreaterThan(
                bytes, owner: scanner.ownerPointer, i &+ 1, end)
        else { return nil }
        let parametersStart = greaterThan &+ 1
        var tag = KnownParameter.absent
        guard
            let parametersEnd = ByteScanner.fastHeaderParameters(
                bytes, from: parametersStart, to: end,
                inspect: { name, value in
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
