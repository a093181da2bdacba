// Copies of parsed addresses in storage of their own: a dialog keeps a few addresses from the messages that
// created it for hours, and a parsed value is a view of its whole message.

extension NameAddress {
    /// The same address in a byte array of its own: its bytes copied, its layout moved with them. What parsing
    /// those bytes again would give, without the parse.
    package var compactCopy: NameAddress {
        var copy = copy(upTo: Int(whole.end))
        if case .value(let r) = tagParameter {
            copy.tagParameter = .value(
                ByteRange(start: Int(r.start) - Int(whole.start), end: Int(r.end) - Int(whole.start)))
        }
        return copy
    }

    /// The address's bytes up to `end` (its end, or where its trailing tag starts) in an array of their own,
    /// its layout moved with them: the parameters end by `end`.
    private func copy(upTo end: Int) -> NameAddress {
        var copy = self
        copy.source = source.withUnsafeBufferPointer {
            Array(UnsafeBufferPointer(rebasing: $0[Int(whole.start)..<end]))
        }
        let delta = -Int(whole.start)
        func move(_ r: ByteRange) -> ByteRange { ByteRange(start: Int(r.start) + delta, end: Int(r.end) + delta) }
        copy.whole = ByteRange(start: 0, end: end + delta)
        copy.parametersRange = ByteRange(
            start: Int(parametersRange.start) + delta, end: min(Int(parametersRange.end), end) + delta)
        switch display {
        case .none: break
        case .quoted(let r): copy.display = .quoted(move(r))
        case .tokens(let r): copy.display = .tokens(move(r))
        }
        if case .sip(let layout) = address { copy.address = .sip(layout.shifted(by: delta)) }
        return copy
    }

    /// The address without its `tag` parameter, in storage of its own: its bytes copied with the one plain
    /// `;tag=value` (`TagScan`) left out, and parsed again. `nil` when the tag is not plain (or not the only
    /// one), or the copy does not parse to an address without a tag.
    package var compactCopyWithoutTag: NameAddress? {
        compactCopyDroppingTrailingTag ?? reparsedCopyWithoutTag
    }

    /// `compactCopyWithoutTag` by parsing the bytes without the tag, for any plain tag.
    package var reparsedCopyWithoutTag: NameAddress? {
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

extension NameAddress {
    /// The usual address, with no tag or ending with the one plain tag the parser recorded
    /// (`<sip:a@b>;x=1;tag=t`): its bytes up to that tag copied, its layout moved with them, with no parse or
    /// scan. `nil` for any other form.
    package var compactCopyDroppingTrailingTag: NameAddress? {
        guard let range = rangeDroppingTrailingTag else { return nil }
        if case .absent = tagParameter { return compactCopy }
        var copy = copy(upTo: range.upperBound)
        copy.tagParameter = .absent
        return copy
    }

    /// Where the bytes of `compactCopyDroppingTrailingTag` lie in this address's storage: the whole address
    /// when it has no tag, or the bytes before the one plain trailing `;tag=` the parser recorded; `nil` for any
    /// other form.
    var rangeDroppingTrailingTag: Range<Int>? {
        let tag: ByteRange
        switch tagParameter {
        case .absent: return whole.range
        case .value(let range): tag = range
        case .unknown, .flag: return nil
        }
        // `;tag=` right before a token value that ends the address: the first tag recorded is then the only one.
        let end = Int(tag.start) - 5
        guard tag.end == whole.end, !tag.isEmpty, end > Int(whole.start), end >= Int(parametersRange.start),
            source[end] == ASCII.semicolon, source[end + 4] == ASCII.equals,
            source[end + 1] | 0x20 == UInt8(ascii: "t"), source[end + 2] | 0x20 == UInt8(ascii: "a"),
            source[end + 3] | 0x20 == UInt8(ascii: "g"), source[end - 1] != ASCII.space, source[end - 1] != ASCII.tab,
            source[tag.range].allSatisfy(\.isTokenChar)
        else { return nil }
        return Int(whole.start)..<end
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
