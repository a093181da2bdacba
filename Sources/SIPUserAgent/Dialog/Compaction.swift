import SIPMessage

// A parsed header value is a view of the whole message it arrived in. A dialog lives for hours and keeps a
// few addresses from its first messages; these helpers copy just those bytes, so that the messages can go.

extension NameAddress {
    /// The same address in storage of its own, without `tag` (a dialog keeps tags apart).
    var compactedWithoutTag: NameAddress {
        // The usual value has one plain tag: the wire form without it, parsed once, is the copy (instead of
        // rebuilding the address from its parts).
        let wire = wireForm
        if let range = TagScan.tagParameterRange(in: wire) {
            var bytes = Array(wire.utf8)
            bytes.removeSubrange(range)
            if let copy = try? NameAddress(String(decoding: bytes, as: UTF8.self)), copy.tag == nil { return copy }
        } else if TagScan(wire) == .absent, let copy = try? NameAddress(wire), copy.tag == nil {
            return copy
        }
        var parameters = self.parameters.elements
        parameters.removeAll { $0.name.lowercased() == "tag" }
        return NameAddress(displayName: displayName, uri: uri.compacted, parameters: Parameters(parameters))
    }

    /// The same address in storage of its own.
    var compacted: NameAddress {
        (try? NameAddress(wireForm)) ?? self
    }
}

extension URI {
    /// The same URI in storage of its own.
    var compacted: URI {
        (try? URI(description)) ?? self
    }
}
