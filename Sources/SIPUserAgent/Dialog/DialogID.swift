public import SIPMessage

/// The identifier of a dialog (RFC 3261 §12): the Call-ID with the local and the remote tag, each from this
/// user agent's point of view.
///
/// A peer that speaks RFC 2543 may send no tag; its tag is then the empty string (§12.2.2).
public struct DialogID: Sendable, Hashable, CustomStringConvertible {
    /// The Call-ID.
    public var callID: String
    /// The tag this side chose: the From tag of requests it sends, the To tag of requests it receives.
    public var localTag: String
    /// The tag the other side chose.
    public var remoteTag: String

    /// - Parameters:
    ///   - callID: the Call-ID.
    ///   - localTag: this side's tag.
    ///   - remoteTag: the other side's tag.
    public init(callID: String, localTag: String, remoteTag: String) {
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
    }

    /// The dialog a received request belongs to (§12.2.2): local tag from To, remote tag from From; `nil`
    /// when the request has no To tag (it is outside any dialog) or its Call-ID, From or To is unreadable.
    public init?(receivedRequest request: SIPRequest) {
        self.init(request.headerFields, localTagIn: .to, remoteTagIn: .from, remoteTagRequired: false)
    }

    /// The dialog a received response belongs to (§12.1.2): local tag from From, remote tag from To; `nil`
    /// when the response has no To tag.
    public init?(receivedResponse response: SIPResponse) {
        self.init(response.headerFields, localTagIn: .from, remoteTagIn: .to, remoteTagRequired: true)
    }

    /// The tags of From and To (`local` and `remote` name which is which) and the Call-ID. Most messages
    /// carry both tags plainly: they are read off the bytes (TagScan), and the fields parsed otherwise. A
    /// missing remote tag is "" unless `remoteTagRequired` (an RFC 2543 peer's request has no From tag).
    private init?(
        _ fields: SIPFields, localTagIn local: SIPField.Name, remoteTagIn remote: SIPField.Name,
        remoteTagRequired: Bool
    ) {
        guard let callID = try? fields.callID else { return nil }
        if case .present(let localTag) = TagScan(fields, local), case .present(let remoteTag) = TagScan(fields, remote)
        {
            self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
            return
        }
        func address(_ name: SIPField.Name) -> NameAddress? { (try? name == .to ? fields.to : fields.from) ?? nil }
        guard let localTag = address(local)?.tag, let remoteAddress = address(remote),
            let remoteTag = remoteAddress.tag ?? (remoteTagRequired ? nil : "")
        else { return nil }
        self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
    }

    public var description: String { "\(callID);local=\(localTag);remote=\(remoteTag)" }
}
