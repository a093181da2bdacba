/// An optional value kept out of line: a struct field that is mostly `nil` costs one pointer instead of its
/// whole size (a call's session keeps a dozen such fields, most of them empty once the call is up).
///
/// A value: the box is immutable and shared between copies; a write stores a new box (one allocation), so
/// use it for fields that are written a few times in their life, not on every packet.
///
/// The box is an indirect enum case: its allocation needs only the value's type, not a generic class's
/// metadata (which the runtime looks up on every allocation), and the accessors are inlinable so that each
/// use, in other modules too, is specialized for its value type.
@propertyWrapper
package struct OutOfLine<Value: Sendable>: Sendable {
    @usableFromInline
    indirect enum Box: Sendable {
        case value(Value)
    }

    @usableFromInline var box: Box?

    @inlinable
    package init(wrappedValue: Value?) {
        if let wrappedValue { box = .value(wrappedValue) } else { box = nil }
    }

    @inlinable
    package var wrappedValue: Value? {
        get {
            guard case .value(let value)? = box else { return nil }
            return value
        }
        set {
            if let newValue { box = .value(newValue) } else { box = nil }
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
