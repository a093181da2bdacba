import SIPMessage

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
        guard let callID = try? request.callID else { return nil }
        // Most in-dialog requests carry both tags plainly: read them off the bytes (TagScan).
        if case .present(let localTag) = TagScan(request.headerFields, .to),
            case .present(let remoteTag) = TagScan(request.headerFields, .from)
        {
            self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
            return
        }
        guard let to = try? request.to, let localTag = to.tag,
            let from = try? request.from
        else { return nil }
        self.init(callID: callID, localTag: localTag, remoteTag: from.tag ?? "")
    }

    /// The dialog a received response belongs to (§12.1.2): local tag from From, remote tag from To; `nil`
    /// when the response has no To tag.
    public init?(receivedResponse response: SIPResponse) {
        guard let callID = try? response.callID else { return nil }
        if case .present(let localTag) = TagScan(response.headerFields, .from),
            case .present(let remoteTag) = TagScan(response.headerFields, .to)
        {
            self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
            return
        }
        guard let from = try? response.from, let localTag = from.tag,
            let to = try? response.to, let remoteTag = to.tag
        else { return nil }
        self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
    }

    public var description: String { "\(callID);local=\(localTag);remote=\(remoteTag)" }
}
