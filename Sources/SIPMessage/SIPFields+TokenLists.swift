// Asking whether a token list (Allow, Supported, Require) holds one token, without building the list: the
// same scan as the typed accessors (`parseList` of `TokenValue`), comparing bytes instead of making strings.

extension SIPFields {
    /// Whether the fields named `name` hold `token` in their comma-separated token lists, as the typed accessor
    /// (`allow`, `supported`, `require`) would find it with `==` (or, with `ignoringCase`, comparing lower-cased
    /// ASCII); `nil` when a list does not parse, where the accessor throws. Empty values count as empty lists
    /// when `allowEmpty` (Allow, Supported), as malformed otherwise (Require).
    package func tokenList(
        _ name: SIPField.Name, allowEmpty: Bool, contains token: String, ignoringCase: Bool = false
    ) -> Bool? {
        guard let header = name.known else { return nil }
        var wanted = token
        return wanted.withUTF8 { wanted in
            var found = false
            for entry in entries where entry.id == header.rawValue {
                let parsed: Void? = try? ByteScanner.scan(storage, entry.valueRange) { (scanner) throws(MessageError) in
                    scanner.skipLWS()
                    if scanner.isAtEnd {
                        if allowEmpty { return }
                        throw .malformed(header, "empty value")
                    }
                    while true {
                        guard let range = scanner.readToken() else { throw .malformed(header, "expected a token") }
                        if !found, scanner.matches(range, wanted, ignoringCase: ignoringCase) { found = true }
                        scanner.skipLWS()
                        if scanner.isAtEnd { break }
                        guard scanner.consumeSeparator(ASCII.comma) else {
                            throw .malformed(header, "unexpected character")
                        }
                    }
                }
                guard parsed != nil else { return nil }
            }
            return found
        }
    }
}

extension ByteScanner {
    /// Whether `bytes[range]` is `text`, byte for byte or ignoring ASCII case.
    fileprivate func matches(_ range: Range<Int>, _ text: UnsafeBufferPointer<UInt8>, ignoringCase: Bool) -> Bool {
        guard range.count == text.count else { return false }
        var j = 0
        for i in range {
            let a = bytes[i]
            let b = text[j]
            if a != b {
                guard ignoringCase, a | 0x20 == b | 0x20, (a | 0x20) &- 0x61 < 26 else { return false }
            }
            j += 1
        }
        return true
    }
}
