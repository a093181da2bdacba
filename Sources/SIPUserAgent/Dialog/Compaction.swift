import SIPMessage

// A parsed header value is a view of the whole message it arrived in. A dialog lives for hours and keeps a
// few addresses from its first messages; these helpers copy just those bytes, so that the messages can go.

extension NameAddress {
    /// The same address in storage of its own, without `tag` (a dialog keeps tags apart).
    var compactedWithoutTag: NameAddress {
        // The usual value has one plain tag, or plainly none: its bytes without it, parsed once.
        if let copy = compactCopyWithoutTag { return copy }
        var parameters = self.parameters.elements
        parameters.removeAll { $0.name.lowercased() == "tag" }
        return NameAddress(displayName: displayName, uri: uri.compacted, parameters: Parameters(parameters))
    }

    /// The same address in storage of its own.
    var compacted: NameAddress { compactCopy }
}

extension URI {
    /// The same URI in storage of its own.
    var compacted: URI { compactCopy }
}

/// A dialog's two addresses (without tags) kept as their bytes in one array, the local one first: a dialog
/// lives for hours and reads them only to build a request, so it keeps 16 bytes and one allocation instead
/// of two parsed values (125 bytes each, with an array each). Each read parses its bytes again.
struct DialogAddresses: Sendable, Hashable {
    private let bytes: [UInt8]
    /// Where the remote address starts.
    private let split: Int

    init(local: NameAddress, remote: NameAddress) {
        var first: [UInt8] = []
        local.serialize(into: &first)
        var second: [UInt8] = []
        remote.serialize(into: &second)
        bytes = first + second
        split = first.count
    }

    var local: NameAddress { Self.address(bytes[..<split]) }
    var remote: NameAddress { Self.address(bytes[split...]) }

    /// The address `bytes` were written from. They were an address's as received (or as built), so they
    /// parse; should they not, a placeholder rather than a trap.
    private static func address(_ bytes: ArraySlice<UInt8>) -> NameAddress {
        (try? NameAddress(String(decoding: bytes, as: UTF8.self)))
            ?? NameAddress(uri: .other(AbsoluteURI(scheme: "urn", content: "invalid")))
    }

    // Compared as the addresses they hold (a display name's quoting, a URI's case), as the values were.
    static func == (a: DialogAddresses, b: DialogAddresses) -> Bool {
        a.bytes == b.bytes || (a.local == b.local && a.remote == b.remote)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(local)
        hasher.combine(remote)
    }
}
