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
        // No token is empty: the second finds nothing, at the cost of a length check.
        tokenList(name, allowEmpty: allowEmpty, contains: token, "", ignoringCase: ignoringCase)?.0
    }

    /// `tokenList(_:allowEmpty:contains:ignoringCase:)` for two tokens in one scan of the lists: whether each is
    /// there, `nil` when a list does not parse.
    package func tokenList(
        _ name: SIPField.Name, allowEmpty: Bool, contains first: String, _ second: String, ignoringCase: Bool = false
    ) -> (Bool, Bool)? {
        guard let header = name.known else { return nil }
        var first = first
        var second = second
        return first.withUTF8 { first in
            second.withUTF8 { second in
                var found = (false, false)
                for entry in entries where entry.id == header.rawValue {
                    let parsed: Void? = try? ByteScanner.scan(storage, entry.valueRange) {
                        (scanner) throws(MessageError) in
                        scanner.skipLWS()
                        if scanner.isAtEnd {
                            if allowEmpty { return }
                            throw .malformed(header, "empty value")
                        }
                        while true {
                            guard let range = scanner.readToken() else {
                                throw .malformed(header, "expected a token")
                            }
                            if !found.0, scanner.matches(range, first, ignoringCase: ignoringCase) { found.0 = true }
                            if !found.1, scanner.matches(range, second, ignoringCase: ignoringCase) { found.1 = true }
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
}

extension ByteScanner {
    /// Whether `bytes[range]` is `text`, byte for byte or ignoring ASCII case. Inlined: most tokens of a list
    /// differ in length from `text`, and the test of that costs less than the call.
    @inline(__always)
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
