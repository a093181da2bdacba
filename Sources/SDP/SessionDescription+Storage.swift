// How a `SessionDescription` holds its lines: in one shared, copy-on-write storage object, so that a copy of a
// description (kept as the last offer, the local description, a pending answer) costs one retain.

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

    /// Runs `body` over the model without copying it out of its storage.
    func read<T>(_ body: (borrowing Model) -> T) -> T {
        body(storage.model)
    }

    /// The storage as a model this value alone holds (copied first when shared): what the setters write to.
    var uniqueModel: ModelStorage {
        mutating get {
            if isKnownUniquelyReferenced(&storage) { return storage }
            let copy = ModelStorage(storage.model)
            storage = copy
            return copy
        }
    }

    public static func == (lhs: SessionDescription, rhs: SessionDescription) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.model == rhs.storage.model
    }

    public func hash(into hasher: inout Hasher) {
        read { hasher.combine($0) }
    }
}

/// A description's model on the heap, shared by copies of the description until one of them writes to it.
final class ModelStorage: @unchecked Sendable {
    // Safe to send: `model` is written only through `SessionDescription.uniqueModel`, after
    // `isKnownUniquelyReferenced` showed that no other value (on this thread or another) holds the storage.
    var model: SessionDescription.Model

    init(_ model: SessionDescription.Model) {
        self.model = model
    }
}
