/// A first-in first-out queue that holds at most `capacity` elements and drops what comes beyond (the
/// driver drains it after every call, so it only fills when the driver does not).
///
/// Inlinable, like the session's outputs that drain it, so that a driver's module specialises both for its
/// address type.
@usableFromInline
struct BoundedQueue<Element> {
    @usableFromInline var elements: [Element] = []
    @usableFromInline var head = 0
    @usableFromInline let capacity: Int

    @inlinable
    init(capacity: Int) { self.capacity = max(capacity, 1) }

    @inlinable
    var count: Int { elements.count - head }

    /// Appends `element`; returns false (and drops it) when the queue is full.
    @inlinable
    mutating func append(_ element: Element) -> Bool {
        guard count < capacity else { return false }
        elements.append(element)
        return true
    }

    /// Takes the oldest element.
    @inlinable
    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head == elements.count {
            // Drained (the driver empties it after every call): the storage goes too, so that an idle stream
            // holds none between its ticks; the next append takes a block the allocator just had back.
            elements.removeAll()
            head = 0
        }
        return element
    }
}

extension BoundedQueue: Sendable where Element: Sendable {}
