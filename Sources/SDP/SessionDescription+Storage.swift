// How a `SessionDescription` holds its lines: in one shared storage object, so that a copy of a description
// (kept as the last offer, the local description, a pending answer) costs one retain. The storage is either a
// model of typed values (`ModelStorage`, copied on write) or the bytes the description was read from or
// written to (`WireStorage`), whose model is built when a property first asks for it.

extension SessionDescription {
    /// The lines of a description as typed values: what the public properties read and write.
    struct Model: Sendable, Hashable {
        var origin: Origin
        var sessionName = "-"
        var information: String?
        var uri: String?
        var emails: [String] = []
        var phones: [String] = []
        var connection: Connection?
        var bandwidths: [Bandwidth] = []
        var timing = [Timing()]
        var timeZones: String?
        var key: String?
        var attributes: [Attribute] = []
        var media: [MediaDescription] = []
        var unknownLines: [UnknownLine] = []

        init(origin: Origin) {
            self.origin = origin
        }
    }

    init(storage: DescriptionStorage) {
        self.storage = storage
    }

    /// The bytes and lines, when the description is kept as bytes.
    var wire: WireStorage? { storage as? WireStorage }

    /// The typed values, built from the bytes first when the description is kept as bytes.
    var modelStorage: ModelStorage {
        if let model = storage as? ModelStorage { return model }
        // The storage is one of the two subclasses.
        return unsafeDowncast(storage, to: WireStorage.self).model
    }

    /// Runs `body` over the model without copying it out of its storage.
    func read<T>(_ body: (borrowing Model) -> T) -> T {
        body(modelStorage.model)
    }

    /// The storage as a model this value alone holds (copied first when shared, built first from the bytes): what
    /// the setters write to.
    var uniqueModel: ModelStorage {
        mutating get {
            if isKnownUniquelyReferenced(&storage), let model = storage as? ModelStorage { return model }
            let copy = ModelStorage(modelStorage.model)
            storage = copy
            return copy
        }
    }

    /// Sets the o= version, keeping a description written as bytes in bytes.
    mutating func setSessionVersion(_ version: UInt64) {
        if let wire {
            if wire.sessionVersion == version { return }
            if let replaced = wire.replacingSessionVersion(version) {
                storage = replaced
                return
            }
        }
        origin.sessionVersion = version
    }

    /// The o= version, read from the bytes when the description is kept as bytes.
    var sessionVersion: UInt64 {
        wire?.sessionVersion ?? origin.sessionVersion
    }

    public static func == (lhs: SessionDescription, rhs: SessionDescription) -> Bool {
        if lhs.storage === rhs.storage { return true }
        if let a = lhs.wire, let b = rhs.wire {
            // The same bytes make the same model; written bytes are their model serialized, so two written
            // descriptions differ exactly when their bytes do.
            if a.bytes == b.bytes { return true }
            if a.isCanonical && b.isCanonical { return false }
        }
        return lhs.modelStorage.model == rhs.modelStorage.model
    }

    public func hash(into hasher: inout Hasher) {
        read { hasher.combine($0) }
    }
}

/// Where a description's lines are: `ModelStorage` or `WireStorage`, the only subclasses.
class DescriptionStorage: @unchecked Sendable {
    // Safe to send: it has no state; each subclass keeps its own safe (see there).
}

/// A description's model on the heap, shared by copies of the description until one of them writes to it.
final class ModelStorage: DescriptionStorage, @unchecked Sendable {
    // Safe to send: `model` is written only through `SessionDescription.uniqueModel`, after
    // `isKnownUniquelyReferenced` showed that no other value (on this thread or another) holds the storage; a
    // model cached by a `WireStorage` is never written to.
    var model: SessionDescription.Model

    init(_ model: SessionDescription.Model) {
        self.model = model
    }
}
