/// Values by session key, found by indexing instead of hashing: a key the directory hands out carries a slot
/// (`SessionKey.slot`, reused once its session is gone), and every table of the driver and the provider files
/// the key's value at that slot of an array, so a look-up is an index and a comparison of the key. A key whose
/// slot holds another key (a stale one still filed) or whose slot is past `denseLimit` goes to a dictionary,
/// so any key works; the array is as long as the most sessions filed at once.
struct SessionTable<Value> {
    private var slots: [(key: SessionKey, value: Value)?] = []
    /// The keys that did not get their slot.
    private var overflow: [SessionKey: Value] = [:]
    private(set) var count = 0

    /// Slots beyond this are never made (a key made up with a large slot costs no memory).
    static var denseLimit: Int { 1 << 20 }

    var isEmpty: Bool { count == 0 }

    subscript(key: SessionKey) -> Value? {
        get {
            let slot = key.slot
            if slot < slots.count, let filed = slots[slot], filed.key == key { return filed.value }
            return overflow.isEmpty ? nil : overflow[key]
        }
        set {
            if let newValue { update(newValue, for: key) } else { removeValue(forKey: key) }
        }
    }

    private mutating func update(_ value: Value, for key: SessionKey) {
        let slot = key.slot
        if slot < slots.count, let filed = slots[slot] {
            if filed.key == key {
                slots[slot] = (key, value)
                return
            }
        } else if slot < Self.denseLimit {
            // The slot is free: the key moves there from the dictionary if it was filed there.
            if !overflow.isEmpty, overflow.removeValue(forKey: key) != nil { count -= 1 }
            while slots.count <= slot { slots.append(nil) }
            slots[slot] = (key, value)
            count += 1
            return
        }
        if overflow.updateValue(value, forKey: key) == nil { count += 1 }
    }

    /// Takes `key`'s value out; nil when it had none.
    @discardableResult
    mutating func removeValue(forKey key: SessionKey) -> Value? {
        let slot = key.slot
        if slot < slots.count, let filed = slots[slot], filed.key == key {
            slots[slot] = nil
            count -= 1
            return filed.value
        }
        guard !overflow.isEmpty, let value = overflow.removeValue(forKey: key) else { return nil }
        count -= 1
        return value
    }

    /// Every value, in no particular order.
    var values: [Value] {
        var all = slots.compactMap { $0?.value }
        all.append(contentsOf: overflow.values)
        return all
    }

    mutating func removeAll() {
        slots = []
        overflow = [:]
        count = 0
    }
}
