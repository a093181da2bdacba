// Copies of parsed addresses in storage of their own: a dialog keeps a few addresses from the messages that
// created it for hours, and a parsed value is a view of its whole message.

extension NameAddress {
    /// The same address in a byte array of its own: its bytes copied, its layout moved with them. What parsing
    /// those bytes again would give, without the parse.
    package var compactCopy: NameAddress {
        var copy = self
        copy.source = source.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[whole.range])) }
        let delta = -Int(whole.start)
        func move(_ r: ByteRange) -> ByteRange { ByteRange(start: Int(r.start) + delta, end: Int(r.end) + delta) }
        copy.whole = move(whole)
        copy.parametersRange = move(parametersRange)
        switch display {
        case .none: break
        case .quoted(let r): copy.display = .quoted(move(r))
        case .tokens(let r): copy.display = .tokens(move(r))
        }
        if case .sip(let layout) = address { copy.address = .sip(layout.shifted(by: delta)) }
        if case .value(let r) = tagParameter { copy.tagParameter = .value(move(r)) }
        return copy
    }

    /// The address without its `tag` parameter, in storage of its own: its bytes copied with the one plain
    /// `;tag=value` (`TagScan`) left out, and parsed again. `nil` when the tag is not plain (or not the only
    /// one), or the copy does not parse to an address without a tag.
    package var compactCopyWithoutTag: NameAddress? {
        var bytes = source.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[whole.range])) }
        let (scan, tagRange) = bytes.withUnsafeBufferPointer { TagScan.scanWithRange($0) }
        switch scan {
        case .absent: break
        case .present:
            guard let tagRange else { return nil }
            bytes.removeSubrange(tagRange)
        case .unclear: return nil
        }
        // As `NameAddress(_:)` parses a whole value, from the bytes instead of a string.
        let parsed = try? ByteScanner.scan(bytes, 0..<bytes.count) { (scanner) throws(MessageError) -> NameAddress in
            scanner.skipLWS()
            let value = try NameAddress.parse(&scanner, field: nil)
            scanner.skipLWS()
            guard scanner.isAtEnd else { throw .malformed(nil, "unexpected text after the value") }
            return value
        }
        guard let parsed, parsed.tag == nil else { return nil }
        return parsed
    }
}

extension URI {
    /// The same URI in storage of its own (a SIP URI's bytes copied, its layout moved with them).
    package var compactCopy: URI {
        guard case .sip(let sip) = self else { return self }
        let whole = sip.layout.whole
        let bytes = sip.source.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[whole.range])) }
        return .sip(SIPURI(source: bytes, layout: sip.layout.shifted(by: -Int(whole.start))))
    }
}
