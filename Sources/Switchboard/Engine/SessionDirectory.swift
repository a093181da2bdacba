import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Names one INVITE session in the driver. The directory makes each key from a serial number (high 32 bits:
/// keys order by when their session began, and none is made twice in 2^32 sessions) and the slot its session holds (low 32
/// bits, reused once the session is gone), which `SessionTable`s index.
struct SessionKey: Hashable, Sendable, CustomStringConvertible {
    let raw: UInt64
    var description: String { "session-\(raw)" }

    /// The slot of the key in a `SessionTable`.
    var slot: Int { Int(truncatingIfNeeded: raw & 0xFFFF_FFFF) }
}

/// One session and the driver's bookkeeping around it.
///
/// Its state is read and written without run-time exclusivity checks (`@exclusivity(unchecked)`): it is
/// confined to the loop, and no access to it calls out while it lasts (`withSession` bodies are steps of the
/// session, a value; the loop arms a timer without running it), so no two accesses can overlap.
final class SessionEntry {
    @exclusivity(unchecked) var session: InviteSession?
    /// What only some sessions need, or only while they are set up (`SessionEntry+Occasional.swift`); `nil`
    /// while all of it is at its default.
    @exclusivity(unchecked) var occasional: OccasionalSessionState?
    @exclusivity(unchecked) var timers = LoopTimers<SessionTimer>()
    /// Where the initial INVITE went or came from: in-dialog requests reuse its transport.
    @exclusivity(unchecked) var transport: SIPTransport.TransportProtocol?
    /// The flow an incoming INVITE arrived on, held while the session lives (set through
    /// `SessionDirectory.setFlow(_:for:)`, which files the session under it).
    fileprivate(set) var flow: FlowID?
    /// The server transaction of an incoming INVITE (for its CANCEL), while it lives.
    var inviteTransaction: TransactionID?
    /// The latest live INVITE server transactions of the session (the initial one and re-INVITEs), newest
    /// last: a failure of one of them (Timer H, a transport error) is the session's to hear. Empty (no
    /// storage) once they have ended, as they have in an established call.
    var serverInvites: [TransactionID] = []
    /// Ended before the session existed (while resolving).
    @exclusivity(unchecked) var isAbandoned = false
    /// Dropped from the directory: late callbacks (a resolution, a transaction event) find nothing to do.
    @exclusivity(unchecked) var isFinished = false

    /// What waits for a session's ICE candidates.
    enum AwaitingMedia {
        /// An outgoing call: its session is built and its INVITE sent with the offer that announces them.
        case outgoing((LocalMedia) -> Void)
        /// An incoming call: the steps its answer needs (the answer itself), run once the answer can carry them.
        case incoming([(inout InviteSession) -> [SessionAction]])
    }

    /// Runs `body` on the session where it is stored, if there is one. The session is a large value:
    /// copying it out and back (or reading a property through a copy) costs more than the step.
    func withSession<T>(_ body: (inout InviteSession) -> T) -> T? {
        session?.inPlace(body)
    }
}

extension InviteSession {
    /// `body` applied to the session in place (through optional chaining on its storage).
    fileprivate mutating func inPlace<T>(_ body: (inout InviteSession) -> T) -> T { body(&self) }
}

/// The driver's sessions and the ways to find one: by key, by dialog (in-dialog requests, ACKs, Replaces),
/// by the server transaction of its INVITE (CANCELs) and by its latest INVITE server transactions (their
/// failures). Every look-up is an index (by key) or a hash: nothing scans the sessions. Pure: no I/O.
struct SessionDirectory {
    private(set) var entries = SessionTable<SessionEntry>()
    /// Slots of removed sessions, reused last-freed first.
    private var freeSlots: [UInt32] = []
    /// Slots ever given out (the next new one).
    private var slotCount: UInt32 = 0
    private var dialogs = DialogTable<SessionKey>()
    /// Incoming INVITE server transactions, for their CANCELs.
    private var invitesByTransaction: [TransactionID: SessionKey] = [:]
    /// The sessions held by each flow (`SessionEntry.flow`), for the flow's loss.
    private var sessionsByFlow: [FlowID: Set<SessionKey>] = [:]
    /// Every session's latest INVITE server transactions (`SessionEntry.serverInvites`), for their failures.
    private var serverInvites: [TransactionID: SessionKey] = [:]
    /// How many INVITE server transactions a session keeps filed: a session waits on at most its initial
    /// INVITE and the latest re-INVITE (an ACK, a final response), and refuses overlapping ones with 491.
    static let serverInvitesPerSession = 4
    private var nextKey: UInt64 = 0

    subscript(key: SessionKey) -> SessionEntry? { entries[key] }

    /// Files a new session under a key no other session had.
    mutating func add() -> (SessionKey, SessionEntry) {
        nextKey += 1
        let slot: UInt32
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = slotCount
            slotCount &+= 1
        }
        let key = SessionKey(raw: nextKey << 32 | UInt64(slot))
        let entry = SessionEntry()
        entries[key] = entry
        return (key, entry)
    }

    /// Remembers that `transaction` is the INVITE of session `key` (an incoming call).
    mutating func addInvite(_ transaction: TransactionID, for key: SessionKey) {
        invitesByTransaction[transaction] = key
        if let entry = entries[key] { entry.inviteTransaction = transaction }
        addServerInvite(transaction, for: key)
    }

    /// Remembers that `transaction` is an INVITE server transaction of session `key` (its initial INVITE or
    /// a re-INVITE), keeping the latest `serverInvitesPerSession`.
    mutating func addServerInvite(_ transaction: TransactionID, for key: SessionKey) {
        guard let entry = entries[key] else { return }
        serverInvites[transaction] = key
        entry.serverInvites.append(transaction)
        if entry.serverInvites.count > Self.serverInvitesPerSession {
            let oldest = entry.serverInvites.removeFirst()
            if serverInvites[oldest] == key { serverInvites[oldest] = nil }
        }
    }

    /// Files session `key` under `flow` (the connection its INVITE came on), or takes it off its flow.
    mutating func setFlow(_ flow: FlowID?, for key: SessionKey) {
        guard let entry = entries[key] else { return }
        if let old = entry.flow {
            sessionsByFlow[old]?.remove(key)
            if sessionsByFlow[old]?.isEmpty == true { sessionsByFlow[old] = nil }
        }
        entry.flow = flow
        if let flow { sessionsByFlow[flow, default: []].insert(key) }
    }

    /// The sessions held by `flow`, in key order.
    func sessions(on flow: FlowID) -> [SessionKey] {
        (sessionsByFlow[flow] ?? []).sorted { $0.raw < $1.raw }
    }

    /// Server transaction `transaction` terminated: if it was a session's INVITE, the session forgets it (an
    /// idle call keeps no transaction filed), and so do the look-ups.
    mutating func serverTransactionEnded(_ transaction: TransactionID) {
        guard let key = serverInvites.removeValue(forKey: transaction) else { return }
        if invitesByTransaction[transaction] == key { invitesByTransaction[transaction] = nil }
        Self.shrinkIfSparse(&serverInvites)
        Self.shrinkIfSparse(&invitesByTransaction)
        guard let entry = entries[key] else { return }
        if entry.inviteTransaction == transaction { entry.inviteTransaction = nil }
        entry.serverInvites.removeAll { $0 == transaction }
        if entry.serverInvites.isEmpty { entry.serverInvites = [] }
    }

    /// A table's room grows with a burst of calls set up at once and is kept: once a quarter of it is used or
    /// less, it is built again at the size its entries need (each entry is moved once per halving at most).
    private static func shrinkIfSparse(_ table: inout [TransactionID: SessionKey]) {
        guard table.capacity > 64, table.count <= table.capacity / 4 else { return }
        var smaller = [TransactionID: SessionKey](minimumCapacity: table.count)
        for (transaction, key) in table { smaller[transaction] = key }
        table = smaller
    }

    /// How many server transactions the look-ups hold (for tests: an idle call holds none).
    var filedServerTransactionCount: Int { serverInvites.count + invitesByTransaction.count }
    /// The room of those look-ups (for tests).
    var filedServerTransactionCapacity: Int { serverInvites.capacity + invitesByTransaction.capacity }

    /// The session whose INVITE is `transaction`.
    func session(invitedBy transaction: TransactionID) -> SessionKey? { invitesByTransaction[transaction] }

    /// The session one of whose latest INVITE server transactions is `transaction`.
    func session(withServerInvite transaction: TransactionID) -> SessionKey? { serverInvites[transaction] }

    /// Which dialog, if any, `request` belongs to.
    func match(_ request: SIPRequest) -> DialogMatch<SessionKey> { dialogs.match(request) }

    /// The session of the dialog a Replaces header field names (RFC 3891).
    func match(_ replaces: Replaces) -> SessionKey? { dialogs.match(replaces)?.1 }

    /// Session `key` has dialog `id` (one per fork).
    mutating func addDialog(_ id: DialogID, for key: SessionKey) { dialogs.insert(key, for: id) }

    /// Dialog `id` of session `key` ended.
    mutating func removeDialog(_ id: DialogID, of key: SessionKey) {
        if dialogs[id] == key { dialogs.remove(id) }
    }

    /// Drops session `key` with its dialogs and INVITE transaction, and marks it finished.
    mutating func remove(_ key: SessionKey) -> SessionEntry? {
        guard let entry = entries[key] else { return nil }
        if let flow = entry.flow {
            sessionsByFlow[flow]?.remove(key)
            if sessionsByFlow[flow]?.isEmpty == true { sessionsByFlow[flow] = nil }
        }
        entries[key] = nil
        freeSlots.append(UInt32(truncatingIfNeeded: key.slot))
        entry.isFinished = true
        if let ids = entry.withSession({ $0.dialogIDs }) {
            for id in ids { removeDialog(id, of: key) }
        }
        if let transaction = entry.inviteTransaction, invitesByTransaction[transaction] == key {
            invitesByTransaction[transaction] = nil
        }
        for transaction in entry.serverInvites where serverInvites[transaction] == key {
            serverInvites[transaction] = nil
        }
        return entry
    }

    /// Drops every session, marked finished; returns them.
    mutating func removeAll() -> [SessionEntry] {
        let all = entries.values
        for entry in all { entry.isFinished = true }
        entries.removeAll()
        freeSlots = []
        slotCount = 0
        dialogs = DialogTable()
        invitesByTransaction = [:]
        serverInvites = [:]
        sessionsByFlow = [:]
        return all
    }
}
