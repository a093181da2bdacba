/// An optional value kept out of line: a struct field that is mostly `nil` costs one pointer instead of its
/// whole size (a call's session keeps a dozen such fields, most of them empty once the call is up).
///
/// A value: the box is immutable and shared between copies; a write stores a new box (one allocation), so
/// use it for fields that are written a few times in their life, not on every packet.
@propertyWrapper
package struct OutOfLine<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box?

    package init(wrappedValue: Value?) {
        box = wrappedValue.map(Box.init)
    }

    package var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }
}

extension OutOfLine: Equatable where Value: Equatable {
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

extension OutOfLine: Hashable where Value: Hashable {
    package func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}
