public import SIPMessage

/// Where a received request belongs (RFC 3261 §12.2.2, §8.2.2.2).
public enum DialogMatch<Value: Sendable>: Sendable {
    /// The request has a To tag and names a known dialog.
    case dialog(DialogID, Value)
    /// The request has no To tag: it is outside any dialog (an initial INVITE, SUBSCRIBE, REFER, MESSAGE,
    /// OPTIONS), for the UA core to handle.
    case outsideDialog
    /// The request has a To tag but names no dialog: answer it with `response` (481), unless it is an ACK,
    /// which gets no answer.
    case unknownDialog(response: SIPResponse?)
}

/// The dialogs of a user agent, keyed by Call-ID and tags, each with a value (a session, a subscription):
/// the table a driver routes in-dialog requests through (RFC 3261 §12.2.2).
///
/// The methods a driver calls per request are inlinable: a driver in another module then runs them specialized
/// for its `Value`, where the generic code looked up the metadata of `Value?`, of `DialogMatch<Value>` and of
/// their payloads at run time on every call. What does not depend on `Value` stays out of line (`DialogRoute`).
public struct DialogTable<Value: Sendable>: Sendable {
    @usableFromInline var entries: [DialogID: Value] = [:]

    /// An empty table.
    @inlinable public init() {}

    /// The number of dialogs.
    @inlinable public var count: Int { entries.count }

    /// Whether the table holds no dialog.
    @inlinable public var isEmpty: Bool { entries.isEmpty }

    /// The value of a dialog; setting `nil` removes the dialog.
    @inlinable public subscript(id: DialogID) -> Value? {
        get { entries[id] }
        set { entries[id] = newValue }
    }

    /// Adds or replaces a dialog.
    @inlinable public mutating func insert(_ value: Value, for id: DialogID) {
        entries[id] = value
    }

    /// Removes a dialog and returns its value.
    @discardableResult
    @inlinable public mutating func remove(_ id: DialogID) -> Value? {
        entries.removeValue(forKey: id)
    }

    /// Every dialog identifier.
    public var ids: Dictionary<DialogID, Value>.Keys { entries.keys }

    /// Where `request` belongs: a known dialog, outside any dialog (no To tag), or an unknown dialog, which
    /// §12.2.2 answers with 481 (an ACK is dropped without answer).
    @inlinable
    public func match(_ request: SIPRequest) -> DialogMatch<Value> {
        let id: DialogID
        switch DialogRoute(request) {
        case .outsideDialog: return .outsideDialog
        case .unreadable(let response): return .unknownDialog(response: response)
        case .dialog(let found): id = found
        }
        if let value = entries[id] { return .dialog(id, value) }
        // A subscription waiting for its first NOTIFY is registered with an empty remote tag (RFC 6665
        // §4.1.2.4: the NOTIFY may come before the 2xx and names the notifier's tag first).
        if request.method == .notify {
            let pending = DialogID(callID: id.callID, localTag: id.localTag, remoteTag: "")
            if let value = entries[pending] { return .dialog(pending, value) }
        }
        return .unknownDialog(response: request.method == .ack ? nil : SIPResponse(answering: request, status: 481))
    }

    /// The dialog a Replaces header field names (RFC 3891 §3): its `to-tag` is this side's tag, its `from-tag`
    /// the other side's.
    public func match(_ replaces: Replaces) -> (DialogID, Value)? {
        let id = DialogID(callID: replaces.callID, localTag: replaces.toTag, remoteTag: replaces.fromTag)
        guard let value = entries[id] else { return nil }
        return (id, value)
    }
}

/// What `DialogTable.match(_:)` reads off a request before it looks in the table, whatever the table holds.
@usableFromInline
enum DialogRoute {
    /// No To tag.
    case outsideDialog
    /// A To tag, but no readable dialog id: answer with `response` (400; none for an ACK).
    case unreadable(SIPResponse?)
    /// The dialog the request names.
    case dialog(DialogID)

    @usableFromInline
    init(_ request: SIPRequest) {
        let fields = request.headerFields
        let to = TagScan(fields, .to)
        switch to {
        case .absent:
            self = .outsideDialog
            return
        case .present: break
        case .unclear:
            guard let to = try? request.to, to.tag != nil else {
                self = .outsideDialog
                return
            }
        }
        // The usual request: To's tag as scanned above, not scanned again for the id; any other goes the
        // general way.
        let known: DialogID?
        if case .present(let localTag) = to, case .present(let remoteTag) = TagScan(fields, .from),
            let callID = try? fields.callID
        {
            known = DialogID(callID: callID, localTag: localTag, remoteTag: remoteTag)
        } else {
            known = DialogID(receivedRequest: request)
        }
        guard let known else {
            self = .unreadable(request.method == .ack ? nil : SIPResponse(answering: request, status: 400))
            return
        }
        self = .dialog(known)
    }
}
