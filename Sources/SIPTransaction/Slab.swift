/// Storage for one kind of transaction: an array of slots reused through a free list, each with a
/// generation that changes when the slot is freed, so that an identifier that outlived its transaction
/// finds nothing. Lookups are array indexing, and an element is mutated in place.
struct Slab<Element: Sendable>: Sendable {
    private(set) var elements: [Element?] = []
    private var generations: [UInt32] = []
    private var freeSlots: [Int] = []
    private(set) var count = 0
    /// The generation a slot appended from now on starts at: above every generation handed out before a
    /// `reset`, so an identifier from before it never names a new element.
    private var generationFloor: UInt32 = 0

    /// Makes room for `count` elements without growing.
    mutating func reserveCapacity(_ count: Int) {
        elements.reserveCapacity(count)
        generations.reserveCapacity(count)
        freeSlots.reserveCapacity(count)
    }

    /// The number of elements stored without growing.
    var capacity: Int { elements.capacity }

    /// Stores `element`, moved in (not copied); returns its slot and the slot's current generation.
    mutating func insert(_ element: consuming Element) -> (slot: Int, generation: UInt32) {
        count += 1
        if let slot = freeSlots.popLast() {
            elements[slot] = consume element
            return (slot, generations[slot])
        }
        elements.append(consume element)
        generations.append(generationFloor)
        return (elements.count - 1, generationFloor)
    }

    /// The slot of a live element, when `generation` is still the slot's. A free slot's generation has not
    /// been handed out yet (it changed when the slot was freed), so a match means the slot is occupied.
    func slot(_ slot: Int, generation: UInt32) -> Int? {
        guard slot >= 0, slot < generations.count, generations[slot] == generation else { return nil }
        return slot
    }

    /// The element in a slot, read and mutated in place (no copy of the whole element).
    subscript(slot: Int) -> Element? {
        _read { yield elements[slot] }
        _modify { yield &elements[slot] }
    }

    /// Gives the storage of an empty slab back and makes room for `capacity` again (after a burst grew it far
    /// past that). Identifiers from before stay stale: new slots start above every old generation.
    mutating func reset(reservingCapacity capacity: Int) {
        guard count == 0 else { return }
        generationFloor = (generations.max() ?? generationFloor) &+ 1
        elements = []
        generations = []
        freeSlots = []
        reserveCapacity(capacity)
    }

    /// Frees a slot and returns its element, moved out; identifiers that name the slot stop matching.
    mutating func remove(at slot: Int) -> Element? {
        guard slot < elements.count, let element = elements[slot].take() else { return nil }
        generations[slot] &+= 1
        freeSlots.append(slot)
        count -= 1
        return element
    }
}
