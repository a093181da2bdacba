/// A value type's fields on the heap, shared by its copies until one of them writes (copy on write): a
/// copy of the value is then one retain instead of a copy of every field and a retain of each string and
/// array in them. `NegotiatedSession` and `OfferAnswerConfiguration` keep their fields this way.
final class SharedFields<Fields: Sendable>: @unchecked Sendable {
    // Safe to send: `fields` is written only through `unique(_:)`'s result, after `isKnownUniquelyReferenced`
    // showed that no other value (on this thread or another) holds the storage.
    //
    // No run-time exclusivity check: the object is reached only through its value, whose accesses the
    // compiler already keeps from overlapping, and it is written only while that value alone holds it.
    @exclusivity(unchecked) var fields: Fields

    init(_ fields: Fields) {
        self.fields = fields
    }

    /// `storage` as one its value alone holds (copied first when shared): what the value's setters write to.
    @inline(__always)
    static func unique(_ storage: inout SharedFields) -> SharedFields {
        if !isKnownUniquelyReferenced(&storage) { storage = SharedFields(storage.fields) }
        return storage
    }
}
