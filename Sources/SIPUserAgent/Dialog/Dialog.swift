public import SIPMessage

/// The state of one dialog (RFC 3261 §12): the peer-to-peer relationship an INVITE, a SUBSCRIBE or a REFER
/// creates, a value.
///
/// A dialog is created by the UAC from a 1xx with a To tag (early) or a 2xx (confirmed), and by the UAS from
/// the request it answers with such a response. It builds the requests sent inside it (§12.2.1: Request-URI,
/// Route, From, To, Call-ID, CSeq) and checks the ones received (§12.2.2: CSeq order, target refresh).
///
/// The addresses are copied out of the messages they arrived in, so a dialog holds no message alive.
public struct Dialog: Sendable, Hashable {
    /// Where the dialog stands (§12: early, confirmed; terminated once a BYE or a final non-2xx ends it).
    public enum State: Sendable, Hashable {
        /// Created by a provisional response; the final response may still end it.
        case early
        /// Created or confirmed by a 2xx.
        case confirmed
        /// Ended.
        case terminated
    }

    /// Where the dialog stands.
    public var state: State
    /// The Call-ID and tags.
    public let id: DialogID
    /// This side's address of record: the From of requests it sends (§12.1.1: the To of the request it answered).
    public var localAddress: NameAddress { addresses.local }
    /// The other side's address of record: the To of requests this side sends.
    public var remoteAddress: NameAddress { addresses.remote }
    /// Both addresses and the remote target as their bytes, read back when a request is built
    /// (`DialogAddresses`).
    var addresses: DialogAddresses
    /// Where requests go: the Contact of the other side's last target refresh (§12.2).
    public internal(set) var remoteTarget: URI {
        get { addresses.target }
        set { addresses.target = newValue }
    }
    /// The Route values of requests in the dialog, first hop first (§12.1.1, §12.1.2).
    public internal(set) var routeSet: [NameAddress]
    /// The CSeq number of the last request this side sent in the dialog; `nil` until it sends one (a UAS).
    public internal(set) var localSequence: UInt32?
    /// The CSeq number of the last request the other side sent; `nil` until one arrives (a UAC).
    public internal(set) var remoteSequence: UInt32?
    /// Whether the dialog was set up with a `sips:` Request-URI (§12.1.1; the transport must then be TLS).
    public let isSecure: Bool

    /// A dialog from its parts.
    /// - Parameters:
    ///   - id: the Call-ID and tags.
    ///   - state: early or confirmed.
    ///   - localAddress: this side's address (without tag).
    ///   - remoteAddress: the other side's address (without tag).
    ///   - remoteTarget: where requests go.
    ///   - routeSet: Route values, first hop first.
    ///   - localSequence: the last CSeq sent, if any.
    ///   - remoteSequence: the last CSeq received, if any.
    ///   - isSecure: whether the dialog is secure.
    public init(
        id: DialogID, state: State, localAddress: NameAddress, remoteAddress: NameAddress, remoteTarget: URI,
        routeSet: [NameAddress] = [], localSequence: UInt32? = nil, remoteSequence: UInt32? = nil,
        isSecure: Bool = false
    ) {
        self.init(
            callID: id.callID, localTag: id.localTag, remoteTag: id.remoteTag, state: state, localAddress: localAddress,
            remoteAddress: remoteAddress, remoteTarget: remoteTarget, routeSet: routeSet,
            localSequence: localSequence, remoteSequence: remoteSequence, isSecure: isSecure)
    }

    /// A dialog from its parts, its id's from the strings they were read as.
    init(
        callID: String, localTag: String, remoteTag: String, state: State, localAddress: borrowing NameAddress,
        remoteAddress: borrowing NameAddress, remoteTarget: borrowing URI, routeSet: [NameAddress],
        localSequence: UInt32?, remoteSequence: UInt32?, isSecure: Bool
    ) {
        // The addresses and the target are borrowed (only their bytes are kept): no copies made to be destroyed.
        self.state = state
        let addresses = DialogAddresses(
            local: localAddress, remote: remoteAddress, remoteTag: remoteTag,
            target: remoteTarget)
        self.addresses = addresses
        // The id's remote tag is read from the addresses' array: no allocation of its own.
        self.id =
            addresses.remoteTag.map { DialogID(callID: callID, localTag: localTag, remote: $0) }
            ?? DialogID(callID: callID, localTag: localTag, remoteTag: remoteTag)
        self.routeSet = routeSet.map(\.compacted)
        self.localSequence = localSequence
        self.remoteSequence = remoteSequence
        self.isSecure = isSecure
    }

    /// The UAC's dialog from the request it sent and a 1xx (with a To tag) or 2xx response (§12.1.2): the
    /// route set is the response's Record-Route reversed, the remote target its Contact.
    ///
    /// A provisional response without Contact leaves the Request-URI as the remote target until a later
    /// response or target refresh gives one; a 2xx without Contact is refused.
    /// - Throws: `DialogError` when the response has no To tag, or a header field is missing or malformed.
    public init(uac request: SIPRequest, response: SIPResponse) throws(DialogError) {
        let fields = try DialogFields(response)
        guard let remoteTag = fields.to.tag else {
            throw DialogError(.missingTag, status: 400, "No To tag in the response")
        }
        let recordRoute: [NameAddress]
        let contact: Contact?
        do {
            recordRoute = try response.recordRoute
            contact = try response.firstContact
        } catch {
            throw .malformed("Record-Route or Contact", error)
        }
        let target: URI
        if let uri = contact?.uri {
            target = uri
        } else if response.isProvisional {
            target = request.uri
        } else {
            throw DialogError(.missingContact, status: 400, "No Contact in the 2xx")
        }
        self.init(
            callID: fields.callID, localTag: fields.from.tag ?? "", remoteTag: remoteTag,
            state: response.isSuccess ? .confirmed : .early, localAddress: fields.from, remoteAddress: fields.to,
            remoteTarget: target, routeSet: recordRoute.reversed(), localSequence: fields.sequenceNumber,
            remoteSequence: nil, isSecure: request.uri.sipURI?.isSecure ?? false)
    }

    /// The UAS's dialog from the request it answers with a 1xx or 2xx carrying `localTag` (§12.1.1): the
    /// route set is the request's Record-Route in order, the remote target its Contact.
    /// - Throws: `DialogError` (400) when Contact is missing or a header field is missing or malformed.
    public init(uas request: SIPRequest, localTag: String, state: State = .early) throws(DialogError) {
        try self.init(uas: request, localTag: localTag, state: state, sharing: nil)
    }

    /// The UAS's dialog, its Call-ID kept in `callID`'s storage when that is the request's (a session
    /// that read it already: one copy per call, not one per holder, and compared as bytes, not read again).
    init(uas request: borrowing SIPRequest, localTag: String, state: State = .early, sharing callID: String?)
        throws(DialogError)
    {
        // The request is borrowed (an initializer would take a copy of it): it is only read.
        let isShared = callID.map { request.headerFields.firstValue(of: .callID, is: $0) } ?? false
        let fields = try DialogFields(request, callID: isShared ? callID : nil)
        let recordRoute: [NameAddress]
        let contactURI: URI?
        do {
            recordRoute = try request.recordRoute
            contactURI = try request.headerFields.firstContactURI
        } catch {
            throw .malformed("Record-Route or Contact", error)
        }
        guard let target = contactURI else {
            throw DialogError(.missingContact, status: 400, "Missing Contact")
        }
        self.init(
            callID: fields.callID, localTag: localTag, remoteTag: fields.from.tag ?? "",
            state: state, localAddress: fields.to, remoteAddress: fields.from, remoteTarget: target,
            routeSet: recordRoute, localSequence: nil, remoteSequence: fields.sequenceNumber,
            isSecure: request.uri.sipURI?.isSecure ?? false)
    }

    /// The methods whose requests and 2xx responses replace the remote target (RFC 3261 §12.2, RFC 3311 §5,
    /// RFC 6665 §4.1.2.4).
    public static let targetRefreshMethods: [SIPMethod] = [.invite, .update, .subscribe, .notify]
}

/// The header fields every dialog operation reads, parsed once.
struct DialogFields {
    var callID: String
    var from: NameAddress
    var to: NameAddress
    /// CSeq's number: its method is not needed (read without making it).
    var sequenceNumber: UInt32

    /// - Parameter callID: the message's Call-ID when the caller read it already; `nil` reads it.
    init(_ message: borrowing some SIPHeaderFieldsContainer, callID known: String? = nil) throws(DialogError) {
        do {
            // Not `known ?? message.callID`: the autoclosure would take a copy of the message.
            let read = known == nil ? try message.callID : known
            guard let callID = read else { throw DialogError.missing("Call-ID") }
            guard let from = try message.from else { throw DialogError.missing("From") }
            guard let to = try message.to else { throw DialogError.missing("To") }
            guard let sequenceNumber = try message.headerFields.cseqNumber else { throw DialogError.missing("CSeq") }
            self.callID = callID
            self.from = from
            self.to = to
            self.sequenceNumber = sequenceNumber
        } catch let error as DialogError {
            throw error
        } catch {
            throw DialogError(.malformedHeader, status: 400, "Malformed Call-ID, From, To or CSeq")
        }
    }
}
