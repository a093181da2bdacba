public import SIPMessage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The identifier of a dialog (RFC 3261 §12): the Call-ID with the local and the remote tag, each from this
/// user agent's point of view.
///
/// A peer that speaks RFC 2543 may send no tag; its tag is then the empty string (§12.2.2).
///
/// Equal when the three are equal as strings. The remote tag is kept as its UTF-8 bytes (`TagBytes`): a
/// dialog's id keeps them in the array of its addresses, so the tag takes no allocation of its own in the
/// dialog nor in the tables keyed by its id. The hash leaves the remote tag out (the Call-ID and the local
/// tag tell dialogs apart but for the forks of one call), so it agrees with string equality whatever the bytes.
public struct DialogID: Sendable, Hashable, CustomStringConvertible {
    /// The Call-ID.
    public var callID: String
    /// The tag this side chose: the From tag of requests it sends, the To tag of requests it receives.
    public var localTag: String
    /// The tag the other side chose.
    public var remoteTag: String {
        get { remote.string }
        set { remote = TagBytes(newValue) }
    }
    /// `remoteTag` as its bytes.
    private(set) var remote: TagBytes

    /// - Parameters:
    ///   - callID: the Call-ID.
    ///   - localTag: this side's tag.
    ///   - remoteTag: the other side's tag.
    public init(callID: String, localTag: String, remoteTag: String) {
        self.init(callID: callID, localTag: localTag, remote: TagBytes(remoteTag))
    }

    /// The id with the remote tag as bytes already kept elsewhere.
    init(callID: String, localTag: String, remote: TagBytes) {
        self.callID = callID
        self.localTag = localTag
        self.remote = remote
    }

    /// Whether the remote tag is `tag` (as `remoteTag == tag` says), without making a string of it.
    func hasRemoteTag(_ tag: String) -> Bool {
        var tag = tag
        return tag.withUTF8 { remote.isSame(as: $0) } ?? (remoteTag == tag)
    }

    public static func == (a: DialogID, b: DialogID) -> Bool {
        a.remote.isSame(as: b.remote) && a.callID == b.callID && a.localTag == b.localTag
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(callID)
        hasher.combine(localTag)
    }

    /// The dialog a received request belongs to (§12.2.2): local tag from To, remote tag from From; `nil`
    /// when the request has no To tag (it is outside any dialog) or its Call-ID, From or To is unreadable.
    public init?(receivedRequest request: SIPRequest) {
        self.init(request.headerFields, localTagIn: .to, remoteTagIn: .from, remoteTagRequired: false)
    }

    /// The dialog a received response belongs to (§12.1.2): local tag from From, remote tag from To; `nil`
    /// when the response has no To tag.
    public init?(receivedResponse response: SIPResponse) {
        self.init(response.headerFields, localTagIn: .from, remoteTagIn: .to, remoteTagRequired: true)
    }

    /// The tags of From and To (`local` and `remote` name which is which) and the Call-ID. Most messages
    /// carry both tags plainly: they are read off the bytes (TagScan), and the fields parsed otherwise. A
    /// missing remote tag is "" unless `remoteTagRequired` (an RFC 2543 peer's request has no From tag).
    private init?(
        _ fields: SIPFields, localTagIn local: SIPField.Name, remoteTagIn remote: SIPField.Name,
        remoteTagRequired: Bool
    ) {
        guard let callID = try? fields.callID else { return nil }
        if case .present(let localTag) = TagScan(fields, local), case .present(let remoteTag) = TagScan(fields, remote)
        {
            self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
            return
        }
        func address(_ name: SIPField.Name) -> NameAddress? { (try? name == .to ? fields.to : fields.from) ?? nil }
        guard let localTag = address(local)?.tag, let remoteAddress = address(remote),
            let remoteTag = remoteAddress.tag ?? (remoteTagRequired ? nil : "")
        else { return nil }
        self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
    }

    public var description: String { "\(callID);local=\(localTag);remote=\(remoteTag)" }
}

/// A tag as UTF-8 bytes in an array that may hold other bytes around them (a dialog's addresses).
struct TagBytes: Sendable {
    private let storage: [UInt8]
    private let start: UInt32
    private let end: UInt32

    /// The bytes of `tag`, in an array of their own (none for an empty tag).
    init(_ tag: String) {
        storage = tag.isEmpty ? [] : Array(tag.utf8)
        start = 0
        end = UInt32(truncatingIfNeeded: storage.count)
    }

    /// `range` of `storage`; `nil` when the range is not within it or beyond 32-bit offsets.
    init?(_ storage: [UInt8], _ range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= storage.count, let start = UInt32(exactly: range.lowerBound),
            let end = UInt32(exactly: range.upperBound)
        else { return nil }
        self.storage = storage
        self.start = start
        self.end = end
    }

    var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(end)])) }
    }

    /// Whether the two tags are equal as strings: byte for byte, or, when either is not ASCII, as Unicode
    /// strings are compared (canonical equivalence), as `String` compares them.
    func isSame(as other: TagBytes) -> Bool {
        other.withBytes { isSame(as: $0) } ?? (string == other.string)
    }

    /// Whether the tag is `other`'s bytes when that shows: equal bytes, or unequal ASCII; `nil` when the
    /// strings must be compared (either is not ASCII, and they may still be canonically equivalent).
    func isSame(as other: UnsafeBufferPointer<UInt8>) -> Bool? {
        withBytes { mine in
            if mine.count == other.count {
                guard let a = mine.baseAddress, let b = other.baseAddress else { return true }
                if memcmp(a, b, mine.count) == 0 { return true }
            }
            if Self.isASCII(mine), Self.isASCII(other) { return false }
            return nil
        }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }
}
