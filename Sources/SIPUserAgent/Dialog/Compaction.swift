import SIPMessage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// A dialog's two addresses (without tags), the remote tag and its remote target kept as their bytes in one
/// array, in that order: a dialog lives for hours and reads them only to build a request, so it keeps 16 bytes
/// and one allocation instead of three parsed values (125, 125 and 61 bytes, with an array each) and a string.
/// Each read parses its bytes again. The dialog's id refers to the tag's bytes here (`TagBytes`).
struct DialogAddresses: Sendable, Hashable {
    private var bytes: [UInt8]
    /// Where the remote address starts.
    private let remoteStart: UInt32
    /// Where the remote tag starts.
    private let tagStart: UInt32
    /// Where the remote target starts.
    private let targetStart: UInt32

    /// From the addresses as they arrived, tags and all: each is kept without its tag, as
    /// `compactedWithoutTag` has it.
    init(local: borrowing NameAddress, remote: borrowing NameAddress, remoteTag: String, target: borrowing URI) {
        // The usual address (no tag, or one plain tag at its end) goes in as its bytes up to the tag, with no
        // copy of it made first; any other is copied without its tag the general way.
        let localCount = local.serializedCountDroppingTrailingTag
        let remoteCount = remote.serializedCountDroppingTrailingTag
        var localBytes: [UInt8] = []
        if localCount == nil { local.compactedWithoutTag.serialize(into: &localBytes) }
        var remoteBytes: [UInt8] = []
        if remoteCount == nil { remote.compactedWithoutTag.serialize(into: &remoteBytes) }
        // One allocation of the exact size for what is kept.
        var bytes: [UInt8] = []
        var remoteTag = remoteTag
        var remoteStart = 0
        var tagStart = 0
        remoteTag.withUTF8 { tag in
            bytes.reserveCapacity(
                (localCount ?? localBytes.count) + (remoteCount ?? remoteBytes.count) + tag.count + target.wireCount)
            if localCount == nil || !local.serializeDroppingTrailingTag(into: &bytes) {
                bytes.append(contentsOf: localBytes)
            }
            remoteStart = bytes.count
            if remoteCount == nil || !remote.serializeDroppingTrailingTag(into: &bytes) {
                bytes.append(contentsOf: remoteBytes)
            }
            tagStart = bytes.count
            bytes.append(contentsOf: tag)
        }
        self.remoteStart = UInt32(truncatingIfNeeded: remoteStart)
        self.tagStart = UInt32(truncatingIfNeeded: tagStart)
        targetStart = UInt32(truncatingIfNeeded: bytes.count)
        target.write(into: &bytes)
        self.bytes = bytes
    }

    var local: NameAddress { Self.address(localBytes) }
    var remote: NameAddress { Self.address(remoteBytes) }
    /// The local address's bytes, without tag: an address's whole value as it was received or built.
    var localBytes: ArraySlice<UInt8> { bytes[..<Int(remoteStart)] }
    /// The remote address's bytes, without tag.
    var remoteBytes: ArraySlice<UInt8> { bytes[Int(remoteStart)..<Int(tagStart)] }
    /// The remote tag's bytes, in this array; `nil` if it could not be placed (offsets beyond 32 bits).
    var remoteTag: TagBytes? { TagBytes(bytes, Int(tagStart)..<Int(targetStart)) }

    /// The remote target; a target refresh replaces its bytes.
    var target: URI {
        get {
            // Written from a URI, so they parse; should they not, a placeholder rather than a trap.
            (try? URI(String(decoding: bytes[Int(targetStart)...], as: UTF8.self)))
                ?? .other(AbsoluteURI(scheme: "urn", content: "invalid"))
        }
        set {
            var text = newValue.description
            var replaced: [UInt8] = []
            replaced.reserveCapacity(Int(targetStart) + text.utf8.count)
            replaced.append(contentsOf: bytes[..<Int(targetStart)])
            text.withUTF8 { replaced.append(contentsOf: $0) }
            bytes = replaced
        }
    }

    /// The address `bytes` were written from. They were an address's as received (or as built), so they
    /// parse; should they not, a placeholder rather than a trap.
    private static func address(_ bytes: ArraySlice<UInt8>) -> NameAddress {
        (try? NameAddress(String(decoding: bytes, as: UTF8.self)))
            ?? NameAddress(uri: .other(AbsoluteURI(scheme: "urn", content: "invalid")))
    }

    /// Whether `to` is, byte for byte, the local address, `;tag=` and `localTag`, and `from` the remote address,
    /// `;tag=` and the remote tag: the To and From of a request sent in the dialog as the addresses arrived.
    /// Both tags must be non-empty.
    func spell(to: UnsafeBufferPointer<UInt8>, localTag: UnsafeBufferPointer<UInt8>, from: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        bytes.withUnsafeBufferPointer { kept in
            let remoteStart = Int(remoteStart)
            let tagStart = Int(tagStart)
            let targetStart = Int(targetStart)
            guard !localTag.isEmpty, tagStart < targetStart, targetStart <= kept.count else { return false }
            return Self.isAddress(
                to, UnsafeBufferPointer(rebasing: kept[..<remoteStart]), tag: localTag)
                && Self.isAddress(
                    from, UnsafeBufferPointer(rebasing: kept[remoteStart..<tagStart]),
                    tag: UnsafeBufferPointer(rebasing: kept[tagStart..<targetStart]))
        }
    }

    /// Whether `a` and `b` hold the same bytes.
    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        return memcmp(x, y, a.count) == 0
    }

    /// Whether `value` is `address`, `;tag=` and `tag`, byte for byte.
    private static func isAddress(
        _ value: UnsafeBufferPointer<UInt8>, _ address: UnsafeBufferPointer<UInt8>, tag: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let separator = address.count
        guard value.count == separator + 5 + tag.count, let v = value.baseAddress else { return false }
        guard value[separator] == UInt8(ascii: ";"), value[separator + 1] == UInt8(ascii: "t"),
            value[separator + 2] == UInt8(ascii: "a"), value[separator + 3] == UInt8(ascii: "g"),
            value[separator + 4] == UInt8(ascii: "=")
        else { return false }
        if let a = address.baseAddress, memcmp(v, a, separator) != 0 { return false }
        guard let t = tag.baseAddress else { return false }
        return memcmp(v + separator + 5, t, tag.count) == 0
    }

    // Compared as the values they hold (a display name's quoting, a URI's spelling), as the values were.
    static func == (a: DialogAddresses, b: DialogAddresses) -> Bool {
        a.bytes == b.bytes || (a.local == b.local && a.remote == b.remote && a.target == b.target)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(local)
        hasher.combine(remote)
        hasher.combine(target)
    }
}
