import Foundation
import SIPMessage

/// Calls reported from a push before their INVITE arrived, and how an INVITE finds its call: by the
/// payload's Call-ID when it had one; otherwise the oldest waiting call of the same account whose caller
/// (when the payload named one) is the INVITE's From, by user and host. Also the Call-IDs of pushed calls
/// the user declined before their INVITE came, so that INVITE is refused rather than ringing again.
/// Bounded: `limit` waiting calls, `limit` remembered declines. Pure.
struct PushedCalls {
    struct Waiting {
        let uuid: UUID
        let callID: String?
        let account: String?
        /// The caller's user and host, when the payload named a SIP caller.
        let caller: Caller?
        /// The answer the user gave before the INVITE arrived (its header fields), sent once it arrives.
        var heldAnswer: [(name: String, value: String)]?
        /// Cancels the timer that fails the call when no INVITE comes.
        var cancelTimer: TimerHandleBox?
    }

    /// A SIP address reduced to what a proxy keeps unchanged: user and host, case-folded.
    struct Caller: Hashable {
        let user: String
        let host: String

        init?(_ uri: URI?) {
            guard let sip = uri?.sipURI else { return nil }
            user = (sip.user ?? "").lowercased()
            host = sip.host.description.lowercased()
        }
    }

    let limit: Int
    /// Oldest first.
    private(set) var waiting: [Waiting] = []
    private var declined: [String] = []

    init(limit: Int) { self.limit = max(1, limit) }

    func uuid(forCallID callID: String) -> UUID? { waiting.first { $0.callID == callID }?.uuid }

    func isWaiting(_ uuid: UUID) -> Bool { waiting.contains { $0.uuid == uuid } }

    /// Files a waiting call; returns the one it pushed out when the table was full.
    mutating func add(_ call: Waiting) -> Waiting? {
        waiting.append(call)
        guard waiting.count > limit else { return nil }
        return waiting.removeFirst()
    }

    /// Takes waiting call `uuid` out of the table.
    mutating func remove(_ uuid: UUID) -> Waiting? {
        guard let index = waiting.firstIndex(where: { $0.uuid == uuid }) else { return nil }
        return waiting.remove(at: index)
    }

    /// Holds the user's answer for waiting call `uuid`; false when it is not waiting.
    mutating func holdAnswer(_ uuid: UUID, headers: [(name: String, value: String)]) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.uuid == uuid }) else { return false }
        waiting[index].heldAnswer = headers
        return true
    }

    /// Where the waiting call an INVITE (Call-ID `callID`, for `account`, from `from`) belongs to is.
    func index(callID: String, account: String?, from: URI?) -> Int? {
        if let index = waiting.firstIndex(where: { $0.callID == callID }) { return index }
        let caller = Caller(from)
        return waiting.firstIndex { call in
            call.callID == nil && (call.account == nil || call.account == account)
                && (call.caller == nil || call.caller == caller)
        }
    }

    /// The waiting call an INVITE belongs to (see `index`), taken out of the table.
    mutating func claim(callID: String, account: String?, from: URI?) -> Waiting? {
        index(callID: callID, account: account, from: from).map { waiting.remove(at: $0) }
    }

    /// Whether the INVITE `callID` is one the user declined before it came.
    func isDeclined(_ callID: String) -> Bool { declined.contains(callID) }

    /// Remembers that the user declined the pushed call `callID` before its INVITE came.
    mutating func declined(_ callID: String) {
        declined.append(callID)
        if declined.count > limit { declined.removeFirst() }
    }

    /// Forgets the decline of `callID` (its INVITE got its 603).
    mutating func forgetDecline(_ callID: String) {
        declined.removeAll { $0 == callID }
    }
}
