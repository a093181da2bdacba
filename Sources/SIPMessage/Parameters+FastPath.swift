extension ByteScanner {
    /// `*( SEMI generic-param )` as `validateHeaderParameters` reads it, for the usual shape only: no white space
    /// anywhere, names of token characters and unquoted values. Returns where the parameters end, or `nil` when
    /// they are of another shape, malformed, or `inspect` rejects one: then the general reader reads them from
    /// `start` and gives the same ranges, or the error. Stops, as the general reader does, before the first byte
    /// after a parameter that is not `;` (a list's `,`, or the end).
    ///
    /// `inspect` gets `state` (what the caller records) and the buffer rather than capturing them: a closure
    /// without captures is inlined into the loop, where one that captured a mutable local was called per parameter.
    @inline(__always)
    static func fastHeaderParameters<State>(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, state: inout State,
        inspect: (inout State, UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>?) -> Bool
    ) -> Int? {
        var i = start
        while i < end, bytes[i] == ASCII.semicolon {
            let nameStart = i &+ 1
            let nameEnd = skip(bytes, from: nameStart, to: end, while: { $0.isTokenChar })
            guard nameEnd > nameStart else { return nil }
            var value: Range<Int>?
            i = nameEnd
            if i < end, bytes[i] == ASCII.equals {
                let valueEnd = skip(bytes, from: i &+ 1, to: end, while: { $0.isGenericValueChar })
                // A quoted or missing value, or white space after '=', is the general reader's.
                guard valueEnd > i &+ 1 else { return nil }
                value = (i &+ 1)..<valueEnd
                i = valueEnd
            }
            guard inspect(&state, bytes, nameStart..<nameEnd, value) else { return nil }
        }
        // White space here may still lead to another parameter or an '=' (LWS around separators).
        if i < end {
            let b = bytes[i]
            if b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf { return nil }
        }
        return i
    }
}
