import SIPMessage

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
public struct DialogTable<Value: Sendable>: Sendable {
    private var entries: [DialogID: Value] = [:]

    /// An empty table.
    public init() {}

    /// The number of dialogs.
    public var count: Int { entries.count }

    /// Whether the table holds no dialog.
    public var isEmpty: Bool { entries.isEmpty }

    /// The value of a dialog; setting `nil` removes the dialog.
    public subscript(id: DialogID) -> Value? {
        get { entries[id] }
        set { entries[id] = newValue }
    }

    /// Adds or replaces a dialog.
    public mutating func insert(_ value: Value, for id: DialogID) {
        entries[id] = value
    }

    /// Removes a dialog and returns its value.
    @discardableResult
    public mutating func remove(_ id: DialogID) -> Value? {
        entries.removeValue(forKey: id)
    }

    /// Every dialog identifier.
    public var ids: Dictionary<DialogID, Value>.Keys { entries.keys }

    /// Where `request` belongs: a known dialog, outside any dialog (no To tag), or an unknown dialog, which
    /// §12.2.2 answers with 481 (an ACK is dropped without answer).
    public func match(_ request: SIPRequest) -> DialogMatch<Value> {
        switch TagScan(request.headerFields, .to) {
        case .absent: return .outsideDialog
        case .present: break
        case .unclear: guard let to = try? request.to, to.tag != nil else { return .outsideDialog }
        }
        guard let id = DialogID(receivedRequest: request) else {
            return .unknownDialog(response: request.method == .ack ? nil : SIPResponse(answering: request, status: 400))
        }
        if let value = entries[id] { return .dialog(id, value) }
        // A subscription waiting for its first NOTIFY is registered with an empty remote tag (RFC 6665
        // §4.1.2.4: the NOTIFY may come before the 2xx and names the notifier's tag first).
        let pending = DialogID(callID: id.callID, localTag: id.localTag, remoteTag: "")
        if request.method == .notify, let value = entries[pending] { return .dialog(pending, value) }
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

extension SIPResponse {
    /// A response to `request` built as RFC 3261 §8.2.6.2 says: every Via in order, From, Call-ID and CSeq
    /// copied; To copied with `toTag` added when it has no tag (and the status is above 100); Timestamp
    /// copied into a 100 (§8.2.6.1).
    /// - Parameters:
    ///   - request: the request answered.
    ///   - status: the status code.
    ///   - reason: the reason phrase; the standard one when `nil`.
    ///   - toTag: the tag for To when the request's To has none.
    public init(answering request: SIPRequest, status: Int, reason: String? = nil, toTag: String? = nil) {
        let source = request.headerFields
        // Room for the copied fields and the few a response adds (Contact, Allow, Supported, ...).
        var fields = SIPFields(reservingCapacity: 1024, fields: 16)
        fields.appendCopies(of: .via, from: source)
        fields.appendCopies(of: .from, from: source)
        if status > 100, let toTag {
            // The common case, one To field whose tag parameter is plainly there or plainly absent, needs no
            // parse: the tag goes on the end, where a header parameter belongs in both forms of the value.
            switch TagScan(source, .to) {
            case .present: fields.appendCopies(of: .to, from: source)
            case .absent: _ = fields.appendCopy(of: .to, from: source, appendingToValue: Array(";tag=\(toTag)".utf8))
            case .unclear:
                if var to = try? source.to, to.tag == nil {
                    to.tag = toTag
                    fields.append(.to, to)
                } else {
                    fields.appendCopies(of: .to, from: source)
                }
            }
        } else {
            fields.appendCopies(of: .to, from: source)
        }
        fields.appendCopies(of: .callID, from: source)
        fields.appendCopies(of: .cseq, from: source)
        if status == 100 {
            fields.appendCopies(of: .timestamp, from: source)
        }
        self.init(statusCode: status, reasonPhrase: reason, headerFields: fields)
    }
}
