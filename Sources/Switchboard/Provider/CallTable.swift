import Foundation

/// The provider's calls: each record by UUID and by the session that carries it, which of them are still
/// live, and the order they began in. Every operation is O(1) whatever the number of calls (a load test keeps
/// thousands). Pure: no I/O.
struct CallTable {
    private var records: [CallKey: CallRecord] = [:]
    /// How many filed calls have not ended (each record says whether it counts), so that the limit check
    /// costs O(1) per new call and no second table is hashed into per call.
    private(set) var liveCount = 0
    private var nextSequence: UInt64 = 0
    /// The record of each session, by the session's slot (no hash of the key, nor of the UUID, per look-up).
    private var bySession = SessionTable<CallRecord>()

    subscript(uuid: UUID) -> CallRecord? { records[CallKey(uuid)] }

    /// The record whose session is `key`.
    subscript(session key: SessionKey) -> CallRecord? { bySession[key] }

    /// How many call records are kept (live, or ended with their session still finishing).
    var count: Int { records.count }

    /// The call whose SIP Call-ID is `callID` (a scan: only pushes ask, and they are rare).
    func record(callID: String) -> CallRecord? { records.values.first { $0.call.callID == callID } }

    /// The calls in the order they began (sorted when asked: snapshots and the wind-down are rare).
    var inOrder: [CallRecord] { records.values.sorted { $0.sequence < $1.sequence } }

    /// Files a new, live call, after every call filed before it.
    mutating func add(_ record: CallRecord) {
        nextSequence &+= 1
        record.sequence = nextSequence
        // A record filed again under its UUID takes the place of the one before (which no longer counts).
        if let replaced = records.updateValue(record, forKey: CallKey(record.uuid)), replaced !== record {
            uncount(replaced)
        }
        if !record.isLive {
            record.isLive = true
            liveCount += 1
        }
    }

    /// Makes `key` the session of `record` (its first, or the next after a 3xx).
    mutating func bind(_ key: SessionKey, to record: CallRecord) {
        record.session = key
        bySession[key] = record
    }

    /// Forgets which call session `key` carried; returns that call.
    @discardableResult
    mutating func unbind(_ key: SessionKey) -> CallRecord? { bySession.removeValue(forKey: key) }

    /// The call ended: it no longer counts against the limit.
    mutating func markEnded(_ record: CallRecord) { uncount(record) }

    /// Forgets `record` and its current session.
    mutating func remove(_ record: CallRecord) {
        if let removed = records.removeValue(forKey: CallKey(record.uuid)) { uncount(removed) }
        uncount(record)
        if let key = record.session { bySession[key] = nil }
    }

    /// Forgets every call and which sessions carried them.
    mutating func removeAll() {
        for record in records.values { record.isLive = false }
        records = [:]
        liveCount = 0
        bySession.removeAll()
    }

    private mutating func uncount(_ record: CallRecord) {
        guard record.isLive else { return }
        record.isLive = false
        liveCount -= 1
    }
}

/// A call's UUID as the table's key: equal when the UUIDs are, and hashed as two words, where Foundation's
/// `UUID` feeds its sixteen bytes to the hasher as a buffer (most of a look-up's cost, a few per call).
private struct CallKey: Hashable {
    let high: UInt64
    let low: UInt64

    init(_ uuid: UUID) {
        (high, low) = withUnsafeBytes(of: uuid.uuid) { bytes in
            (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }
}
