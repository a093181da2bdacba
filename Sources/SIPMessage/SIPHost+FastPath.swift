extension SIPHost {
    /// The host that starts at `start`, for the usual shape only: an IPv4 address, or a hostname whose labels
    /// each start with an alphanumeric and do not end with "-", whose top label starts with a letter, and which
    /// has no trailing dot. Returns where the host ends and its kind, as `ByteScanner.readHost` reads the same
    /// bytes; `nil` for anything else (a bracketed, malformed or unusual host), and then `readHost` decides.
    ///
    /// Read by `SIPURI.fastLayout` (the URIs of From, To, Contact and the Request-URI) with no scanner, before
    /// `readHost`: about 40 instructions less per host. `Via.parseFast` calls it through `readUsualHost`: inlined
    /// there, with `readHost` beside it, it cost the Via reader more than it saved.
    @inline(__always)
    static func fastHost(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (
        end: Int, kind: SIPHost.Kind
    )? {
        guard start >= 0, start < end, end <= bytes.count else { return nil }
        let first = bytes[start]
        if first &- 0x30 < 10 {
            // As `readHost`: an address when no host character follows it; anything else is its to read.
            guard let stop = ipv4End(bytes, from: start, to: end),
                stop == end || !(bytes[stop].isIn(.label) || bytes[stop] == ASCII.dot)
            else { return nil }
            return (stop, .ipv4)
        }
        var i = start
        var topLabelFirst = first
        while true {
            // A label: an alphanumeric, then alphanumerics and hyphens, the last not a hyphen. `i < end` here.
            let labelFirst = bytes[i]
            guard labelFirst.isAlphanumeric else { return nil }
            topLabelFirst = labelFirst
            i = ByteScanner.skip(bytes, from: i &+ 1, to: end, while: { $0.isIn(.label) })
            guard bytes[i &- 1] != ASCII.minus else { return nil }
            guard i < end, bytes[i] == ASCII.dot else { break }
            i &+= 1
            // A trailing dot (at the end, or before a byte that starts no label) is `readHost`'s.
            guard i < end else { return nil }
        }
        guard i &- start <= 255, topLabelFirst.isAlpha else { return nil }
        return (i, .hostname)
    }
}

extension ByteScanner {
    /// `readHost`, with the usual hosts read by `SIPHost.fastHost` first; one call, for the Via reader.
    @inline(never)
    mutating func readUsualHost() -> (span: ByteRange, kind: SIPHost.Kind)? {
        if let (stop, kind) = SIPHost.fastHost(bytes, from: index, to: end) {
            let span = ByteRange(start: index, end: stop)
            index = stop
            return (span, kind)
        }
        return readHost()
    }
}
