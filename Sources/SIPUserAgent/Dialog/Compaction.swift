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
