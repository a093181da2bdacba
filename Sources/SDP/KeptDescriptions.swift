/// The descriptions an `OfferAnswer` keeps for the rest of the session (the last one sent, the last one taken from
/// the other side), in their smallest form. A description kept as bytes holds a storage object beside its bytes
/// (and a scanned one the ranges of its lines); kept here, only the bytes stay, both descriptions' in one array
/// of their exact size (one allocation for the two, the local one's first), and the storage is made again from
/// them when a description is read, which only re-offers, repeated answers, ICE and the 200 after a 183 do:
///
/// - a scanned description whose model nobody asked for: its bytes, scanned again when read (the scan is
///   deterministic, and the bytes passed it once, under limits at least as strict as `unbounded`);
/// - a written one: its bytes and where its o= version is (the bytes hold the version itself);
/// - anything else (a model, a scanned description whose model was built): the description as it is.
///
/// A description read back equals the one kept (`==`), and offers and answers made from it are the same.
struct KeptDescriptions: Sendable {
    /// How one description is kept.
    private enum Form: Sendable {
        /// Scanned bytes at `start..<end` of `bytes`.
        case scanned(start: UInt32, end: UInt32)
        /// Written bytes at `start..<end` of `bytes`, the o= version at `versionStart` (from `start`), with
        /// `versionLength` digits.
        case written(start: UInt32, end: UInt32, versionStart: UInt16, versionLength: UInt8)
        case description(SessionDescription)
    }

    /// The bytes of the descriptions kept as bytes: the local one's, then the remote one's.
    private var bytes: [UInt8] = []
    private var localForm: Form?
    private var remoteForm: Form?

    /// The last description we made, as sent.
    var local: SessionDescription? {
        get { localForm.map(read) }
        set { replace(local: newValue) }
    }

    /// The last description accepted from the other side.
    var remote: SessionDescription? {
        get { remoteForm.map(read) }
        set { replace(remote: newValue) }
    }

    /// Keeps `local` in place of the local description, the remote one kept as it is (its bytes, when kept as
    /// bytes, copied over without making its description again).
    private mutating func replace(local: SessionDescription?) {
        guard let remoteRange = Self.range(of: remoteForm) else { return set(local: local, remote: remote) }
        let localBytes = local.flatMap(Self.keptBytes)
        let localCount = localBytes?.count ?? 0
        guard localCount + remoteRange.count <= Int(UInt32.max) else { return set(local: local, remote: remote) }
        var joined: [UInt8] = []
        joined.reserveCapacity(localCount + remoteRange.count)
        if let localBytes { joined.append(contentsOf: localBytes) }
        joined.append(contentsOf: bytes[remoteRange])
        localForm = local.map { Self.form($0, at: 0, isBytes: localBytes != nil) }
        remoteForm = remoteForm.map { Self.moved($0, to: UInt32(truncatingIfNeeded: localCount)) }
        bytes = joined
    }

    /// Keeps `remote` in place of the remote description, the local one kept as it is (its bytes, when kept as
    /// bytes, copied over without making its description again).
    private mutating func replace(remote: SessionDescription?) {
        guard let localRange = Self.range(of: localForm) else { return set(local: local, remote: remote) }
        let remoteBytes = remote.flatMap(Self.keptBytes)
        let remoteCount = remoteBytes?.count ?? 0
        guard localRange.count + remoteCount <= Int(UInt32.max) else { return set(local: local, remote: remote) }
        var joined: [UInt8] = []
        joined.reserveCapacity(localRange.count + remoteCount)
        joined.append(contentsOf: bytes[localRange])
        if let remoteBytes { joined.append(contentsOf: remoteBytes) }
        localForm = localForm.map { Self.moved($0, to: 0) }
        remoteForm = remote.map {
            Self.form($0, at: UInt32(truncatingIfNeeded: localRange.count), isBytes: remoteBytes != nil)
        }
        bytes = joined
    }

    /// Where in `bytes` a description kept as bytes is; `nil` for one kept as it is (or none).
    private static func range(of form: Form?) -> Range<Int>? {
        switch form {
        case .scanned(let start, let end), .written(let start, let end, _, _): Int(start)..<Int(end)
        case .description, nil: nil
        }
    }

    /// `form` with its bytes moved to `start` (its version field stays where it is in them).
    private static func moved(_ form: Form, to start: UInt32) -> Form {
        switch form {
        case .scanned(let old, let end):
            .scanned(start: start, end: start + (end - old))
        case .written(let old, let end, let versionStart, let versionLength):
            .written(start: start, end: start + (end - old), versionStart: versionStart, versionLength: versionLength)
        case .description:
            form
        }
    }

    /// Keeps `local` and `remote` (both replaced at once: one array built).
    mutating func set(local: SessionDescription?, remote: SessionDescription?) {
        let localBytes = local.flatMap(Self.keptBytes)
        let remoteBytes = remote.flatMap(Self.keptBytes)
        let localCount = localBytes?.count ?? 0
        let remoteCount = remoteBytes?.count ?? 0
        // Offsets are 32-bit: descriptions beyond them stay as they are.
        let fits = localCount + remoteCount <= Int(UInt32.max)
        localForm = local.map { Self.form($0, at: 0, isBytes: fits && localBytes != nil) }
        remoteForm = remote.map {
            Self.form($0, at: UInt32(truncatingIfNeeded: localCount), isBytes: fits && remoteBytes != nil)
        }
        var joined: [UInt8] = []
        if fits, localCount + remoteCount > 0 {
            joined.reserveCapacity(localCount + remoteCount)
            if let localBytes { joined.append(contentsOf: localBytes) }
            if let remoteBytes { joined.append(contentsOf: remoteBytes) }
        }
        bytes = joined
    }

    /// The bytes `description` is kept as; `nil` when it is kept as it is.
    private static func keptBytes(_ description: SessionDescription) -> [UInt8]? {
        guard let wire = description.wire else { return nil }
        if let field = wire.versionField {
            guard UInt16(exactly: field.lowerBound) != nil, UInt8(exactly: field.count) != nil else { return nil }
            return wire.bytes
        }
        // Reading it again would build the model again.
        return wire.hasBuiltModel ? nil : wire.bytes
    }

    /// How `description` is kept: its bytes at `start` when `isBytes` (`keptBytes` gave them and they fit).
    private static func form(_ description: SessionDescription, at start: UInt32, isBytes: Bool) -> Form {
        guard isBytes, let wire = description.wire else { return .description(description) }
        let end = start + UInt32(truncatingIfNeeded: wire.bytes.count)
        guard let field = wire.versionField else { return .scanned(start: start, end: end) }
        return .written(
            start: start, end: end, versionStart: UInt16(truncatingIfNeeded: field.lowerBound),
            versionLength: UInt8(truncatingIfNeeded: field.count))
    }

    /// How many byte arrays hold the descriptions kept as bytes: 1 for both (0 when there is none).
    var byteArrayCount: Int { bytes.isEmpty ? 0 : 1 }

    /// Whether `other` is the remote description kept (`remote == other`), from the bytes when both are bytes.
    func remoteIsSame(as other: SessionDescription) -> Bool {
        switch remoteForm {
        case nil:
            return false
        case .scanned(let start, let end), .written(let start, let end, _, _):
            if let wire = other.wire, bytes[Int(start)..<Int(end)] == wire.bytes[...] { return true }
        case .description(let description):
            if description.storage === other.storage { return true }
        }
        return remote == other
    }

    /// The description of `form`, its storage made again from the bytes when it was kept as bytes.
    private func read(_ form: Form) -> SessionDescription {
        switch form {
        case .description(let description):
            return description
        case .written(let start, let end, let versionStart, let versionLength):
            let own = Array(bytes[Int(start)..<Int(end)])
            let field = Int(versionStart)..<(Int(versionStart) + Int(versionLength))
            let version = own.withUnsafeBufferPointer { $0.decimal(field) } ?? 0
            return SessionDescription(storage: WireStorage(written: own, versionField: field, version: version))
        case .scanned(let start, let end):
            let own = Array(bytes[Int(start)..<Int(end)])
            if let wire = WireStorage.scanning(own, limits: .unbounded) {
                return SessionDescription(storage: wire)
            }
            assertionFailure("a scanned description failed a second scan")
            return (try? SessionDescription(parsingModel: own, limits: .unbounded))
                ?? SessionDescription(
                    model: SessionDescription.Model(origin: Origin(sessionID: "0", sessionVersion: 0, address: "-")))
        }
    }
}
