/// A description an `OfferAnswer` keeps for the rest of the session (the last one sent, the last one taken from the
/// other side), in its smallest form. A description kept as bytes holds a storage object beside its bytes (and a
/// scanned one the ranges of its lines); kept here, only the bytes stay, and the storage is made again from them
/// when the description is read, which only re-offers, repeated answers, ICE and the 200 after a 183 do:
///
/// - a scanned description whose model nobody asked for: its bytes, scanned again when read (the scan is
///   deterministic, and the bytes passed it once, under limits at least as strict as `unbounded`);
/// - a written one: its bytes and where its o= version is (the bytes hold the version itself);
/// - anything else (a model, a scanned description whose model was built): the description as it is.
///
/// The description read back equals the one kept (`==`), and offers and answers made from it are the same.
struct KeptDescription: Sendable {
    private enum Form: Sendable {
        case scanned([UInt8])
        /// The bytes, the offset of the o= version and its digit count.
        case written([UInt8], versionStart: UInt16, versionLength: UInt8)
        case description(SessionDescription)
    }

    private let form: Form

    init(_ description: SessionDescription) {
        guard let wire = description.wire else {
            form = .description(description)
            return
        }
        if let field = wire.versionField {
            if let start = UInt16(exactly: field.lowerBound), let length = UInt8(exactly: field.count) {
                form = .written(wire.bytes, versionStart: start, versionLength: length)
            } else {
                form = .description(description)
            }
        } else if wire.hasBuiltModel {
            // Reading it again would build the model again.
            form = .description(description)
        } else {
            form = .scanned(wire.bytes)
        }
    }

    /// The description, its storage made again from the bytes when it was kept as bytes.
    var description: SessionDescription {
        switch form {
        case .description(let description):
            return description
        case .written(let bytes, let start, let length):
            let field = Int(start)..<(Int(start) + Int(length))
            let version = bytes.withUnsafeBufferPointer { $0.decimal(field) } ?? 0
            return SessionDescription(storage: WireStorage(written: bytes, versionField: field, version: version))
        case .scanned(let bytes):
            if let wire = WireStorage.scanning(bytes, limits: .unbounded) {
                return SessionDescription(storage: wire)
            }
            assertionFailure("a scanned description failed a second scan")
            return (try? SessionDescription(parsingModel: bytes, limits: .unbounded))
                ?? SessionDescription(
                    model: SessionDescription.Model(origin: Origin(sessionID: "0", sessionVersion: 0, address: "-")))
        }
    }

    /// Whether `other` is the description kept (`description == other`), from the bytes when both are bytes.
    func isSame(as other: SessionDescription) -> Bool {
        switch form {
        case .scanned(let bytes), .written(let bytes, _, _):
            if let wire = other.wire, wire.bytes == bytes { return true }
        case .description(let description):
            if description.storage === other.storage { return true }
        }
        return description == other
    }
}
