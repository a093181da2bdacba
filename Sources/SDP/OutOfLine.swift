/// An optional value kept out of line: a struct field that is mostly `nil` costs one pointer instead of its
/// whole size (a call's session keeps a dozen such fields, most of them empty once the call is up).
///
/// A value: the box is shared between copies and written only while no copy shares it (as an array's storage
/// is); a write to a shared box stores a new box (one allocation), so use it for fields that are written a few
/// times in their life, not on every packet. Inlinable so that each use is specialized for its value type
/// (other modules use it too: generic accessors would look type metadata up on every read and write).
@propertyWrapper
package struct OutOfLine<Value: Sendable>: Sendable {
    // Safe as Sendable: `value` is only written through `wrappedValue`'s setter while `box` is uniquely
    // referenced, so no other copy (and no other thread) can see the write.
    @usableFromInline
    final class Box: @unchecked Sendable {
        @usableFromInline var value: Value

        @inlinable init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box?

    @inlinable
    package init(wrappedValue: Value?) {
        if let wrappedValue { box = Box(wrappedValue) } else { box = nil }
    }

    @inlinable
    package var wrappedValue: Value? {
        get { box?.value }
        set {
            guard let newValue else {
                box = nil
                return
            }
            if box != nil, isKnownUniquelyReferenced(&box) {
                box?.value = newValue
            } else {
                box = Box(newValue)
            }
        }
    }
}

extension OutOfLine: Equatable where Value: Equatable {
    @inlinable
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

extension OutOfLine: Hashable where Value: Hashable {
    @inlinable
    package func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}
