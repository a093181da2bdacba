// A tag added in place: a dialog keeps its two addresses without tags and writes each request's From and
// To from them with the tags added (RFC 3261 §12.2.1.1), so this runs twice per request a dialog sends.

extension NameAddress {
    /// Adds `;tag=value` after the parameters of an address that has no tag, appending to its bytes: the
    /// rest of the value, as written, is kept. Only for an address in bytes of its own that end with its
    /// parameters, and a token value; `false` (nothing changed) otherwise, for the general rebuild.
    mutating func appendTagInPlace(_ value: String) -> Bool {
        guard whole.start == 0, Int(whole.end) == source.count, parametersRange.end == whole.end, !value.isEmpty,
            value.utf8.allSatisfy({ $0.isTokenChar })
        else { return false }
        switch tagParameter {
        case .absent: break
        case .unknown: guard !parameters.contains("tag") else { return false }
        case .flag, .value: return false
        }
        source.reserveCapacity(source.count + 5 + value.utf8.count)
        source.append(contentsOf: ";tag=".utf8)
        let start = source.count
        source.append(contentsOf: value.utf8)
        whole = ByteRange(start: 0, end: source.count)
        parametersRange = ByteRange(start: Int(parametersRange.start), end: source.count)
        tagParameter = .value(ByteRange(start: start, end: source.count))
        return true
    }
}
