import SIPMessage

/// The provider's accounts in configuration order, and the rules that pick one: by id, by the address a
/// call or message came to, or the first as the default. Pure: no I/O.
struct AccountBook {
    private let entries: [String: AccountEntry]
    /// Every account, in configuration order.
    let all: [AccountEntry]
    /// Whether an account has ICE settings of its own (a policy, STUN or TURN servers). Without one, the
    /// configuration alone decides whether a call uses ICE, whichever account it belongs to.
    let someAccountSetsICE: Bool

    /// Parses `accounts`.
    /// - Throws: `CallError.configuration` when an account is unusable or two share an id.
    init(_ accounts: [Account]) throws(CallError) {
        var parsed: [AccountEntry] = []
        for account in accounts { parsed.append(try AccountEntry(account)) }
        try self.init(entries: parsed)
    }

    /// The book of already parsed entries.
    /// - Throws: `CallError.configuration` when two share an id.
    init(entries: [AccountEntry]) throws(CallError) {
        var byID: [String: AccountEntry] = [:]
        for entry in entries {
            guard byID.updateValue(entry, forKey: entry.id) == nil else {
                throw .configuration("two accounts have the same id")
            }
        }
        self.entries = byID
        all = entries
        someAccountSetsICE = entries.contains {
            $0.account.icePolicy != nil || $0.account.stunServers != nil || $0.account.turnServers != nil
        }
    }

    subscript(id: String) -> AccountEntry? { entries[id] }

    /// The accounts' ids in configuration order.
    var ids: [String] { all.map(\.id) }

    /// The default account: the first configured.
    var first: AccountEntry? { all.first }

    /// The account `id` names, or the default when `id` is nil or unknown.
    func entry(orDefault id: String?) -> AccountEntry? { id.flatMap { entries[$0] } ?? first }

    /// The account `id` names, or the default when `id` is nil.
    /// - Throws: `CallError.unknownAccount` when no account has the id.
    func lookUp(_ id: String?) throws(CallError) -> AccountEntry? {
        if let id, entries[id] == nil { throw .unknownAccount(id) }
        return entry(orDefault: id)
    }

    /// The account a call or message to or from `uri` belongs to: the one whose AOR has its user and host,
    /// else the first with its user, else the default.
    func matching(_ uri: SIPURI?) -> AccountEntry? {
        guard let uri else { return first }
        let sameUser = all.filter { $0.addressOfRecord.user == uri.user }
        return sameUser.first { $0.addressOfRecord.host == uri.host } ?? sameUser.first ?? first
    }

    /// Where a request from account `id` (the default when nil) to `handle` goes.
    /// - Throws: `CallError.unknownAccount` for an unknown id, `CallError.invalidHandle` for a handle that is
    ///   no SIP address.
    func target(_ handle: Handle, from id: String?) throws(CallError) -> (URI, AccountEntry?) {
        let entry = try lookUp(id)
        return (try handle.uri(defaultDomain: entry?.defaultDomain), entry)
    }
}
