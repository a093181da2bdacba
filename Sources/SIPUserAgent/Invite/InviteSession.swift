public import SDP
public import SIPAuthentication
public import SIPMessage

/// One call, in either role: the INVITE usage of a dialog (RFC 3261 §13-§15) with its offer/answer
/// (RFC 3264, RFC 6337), re-INVITE, UPDATE (RFC 3311), reliable provisional responses (RFC 3262) and session
/// timers (RFC 4028), plus INFO, MESSAGE and REFER inside the dialog.
///
/// A sans-I/O state machine like SIPTransaction's: each TU command, network event and timer expiry is a
/// `mutating` call that returns `SessionAction`s for the driver (send a request in a new client
/// transaction, answer through a server transaction, send a 2xx ACK, arm or cancel a timer, route a dialog,
/// tell the TU). It reads no clock and draws no randomness of its own: the random source is injected.
///
/// The session owns the dialog and one `OfferAnswer` per dialog. As UAC it also keeps the early dialogs of
/// a forked INVITE, each with a copy of the offer/answer state: the first 2xx confirms its dialog, further
/// 2xx are ACKed and ended with BYE (§13.2.2.4).
public struct InviteSession: Sendable {
    /// Which side of the INVITE this session is.
    public enum Role: Sendable, Hashable {
        /// This side sent the INVITE (and generated the Call-ID, which matters for glare, §14.1).
        case uac
        /// This side received it.
        case uas
    }

    /// Where the call stands.
    public enum State: Sendable, Hashable {
        /// UAC: `start()` not called yet.
        case idle
        /// UAC: the INVITE is out and no provisional response arrived.
        case calling
        /// UAS: the INVITE arrived and no response but 100 went out.
        case incoming
        /// A provisional response with a To tag went out (UAS) or came in (UAC): early dialog(s).
        case early
        /// UAS: the 2xx went out; its ACK has not arrived.
        case connecting
        /// The dialog is confirmed: the call is up.
        case confirmed
        /// The call is over (a transaction may still be finishing).
        case terminated
    }

    /// Which side of the INVITE this session is.
    public let role: Role
    /// What the session does on its own; changes apply to the next message it builds.
    public var configuration: InviteSessionConfiguration {
        didSet { configurationGeneration &+= 1 }
    }
    /// Counts changes of `configuration`, so that what was built from it is rebuilt after one.
    var configurationGeneration: UInt32 = 0
    /// The dialog: the confirmed one, the UAS's early one, or the UAC's most recently active early one.
    public internal(set) var dialog: Dialog?
    /// The offer/answer state of `dialog`: the negotiated session, hold flags, last descriptions.
    public internal(set) var offerAnswer: OfferAnswer
    /// Answers 401 and 407 challenges to the session's requests (RFC 3261 §22.2); `nil` fails them.
    public var authenticator: DigestAuthenticator? {
        get {
            guard case .value(let authenticator)? = authenticatorStorage else { return nil }
            return authenticator
        }
        set { authenticatorStorage = newValue.map { .value($0) } }
    }
    /// Out of line: most sessions (every incoming call) have none, and a session lives as long as its call.
    /// A box of its own rather than the generic `OutOfLine`, whose metadata is looked up at run time.
    var authenticatorStorage: AuthenticatorBox?

    /// A `DigestAuthenticator` in a box.
    indirect enum AuthenticatorBox: Sendable {
        case value(DigestAuthenticator)
    }

    /// This side's tag.
    public let localTag: String
    /// The Call-ID.
    public let callID: String

    /// Where the call stands, with what only that stage of it needs.
    var phase: Phase
    /// UAC: the initial INVITE while its client transaction lives (past `confirmed`, for the 2xx of other forks).
    var outgoingInvite: OutgoingInvite? {
        get {
            guard case .value(let invite)? = outgoingInviteStorage else { return nil }
            return invite
        }
        set { outgoingInviteStorage = newValue.map { .value($0) } }
    }
    /// Out of line, in a box of its own for the reason `authenticatorStorage` has one: a UAS has none.
    var outgoingInviteStorage: OutgoingInviteBox?

    /// An `OutgoingInvite` in a box.
    indirect enum OutgoingInviteBox: Sendable {
        case value(OutgoingInvite)
    }
    var transactions: [ClientTransaction] = []
    var acks: [SentACK] = []
    var queuedOffer: LocalOffer?
    var glareRetry: LocalOffer?
    var sessionTimer: ActiveSessionTimer?
    var referrals = Referrals()
    var timers = TimerBook()
    var random: SessionRandom
    var nextToken: UInt32 = 0
    var peer = PeerCapabilities()
    var isDialogAnnounced = false

    /// A UAC session for an outgoing call; `start()` sends the INVITE.
    /// - Parameters:
    ///   - call: the INVITE's addresses, Call-ID, tag and extra headers.
    ///   - configuration: the session's behaviour.
    ///   - offerAnswer: the offer/answer engine, configured for this call's media.
    ///   - random: seeds the glare back-off; e.g. a generator over OpenSSL's `RAND_bytes`.
    ///   - authenticator: answers 401/407 challenges.
    public init(
        outgoing call: OutgoingCall, configuration: InviteSessionConfiguration, offerAnswer: OfferAnswer,
        random: some RandomNumberGenerator, authenticator: DigestAuthenticator? = nil
    ) {
        var generator = random
        self.role = .uac
        self.phase = .idle(call)
        self.configuration = configuration
        self.offerAnswer = offerAnswer
        self.authenticatorStorage = authenticator.map { .value($0) }
        self.localTag = call.localTag
        self.callID = call.callID
        self.random = SessionRandom(seed: generator.next())
    }

    /// A UAS session for an INVITE received outside any dialog; `start()` checks it and reports its offer.
    /// - Parameters:
    ///   - request: the INVITE.
    ///   - transaction: the server transaction it arrived in.
    ///   - localTag: a new To tag for the responses (SIPCore's `makeTag()`).
    ///   - configuration: the session's behaviour.
    ///   - offerAnswer: the offer/answer engine, configured for this call's media.
    ///   - random: seeds the glare back-off and the RSeq start value.
    public init(
        incoming request: SIPRequest, transaction: ServerTransactionToken, localTag: String,
        configuration: InviteSessionConfiguration, offerAnswer: OfferAnswer, random: some RandomNumberGenerator
    ) {
        var generator = random
        self.role = .uas
        // Call-ID read first: the request then goes into its record as it came, not as a copy.
        self.callID = (try? request.callID) ?? ""
        self.phase = .incoming(IncomingInviteBox(IncomingInvite(request: request, token: transaction)))
        self.configuration = configuration
        self.localTag = localTag
        self.random = SessionRandom(seed: generator.next())
        // Moved in: the parameter's lifetime would otherwise keep a copy alive to the end of the initializer.
        self.offerAnswer = consume offerAnswer
    }

    /// Whether the session has nothing left to do: ended, no timer armed, and no transaction open but an
    /// INVITE's in RFC 6026's Accepted state, which only passes up retransmissions of its 2xx: their ACKs are
    /// in `lingeringACKs`.
    public var isFinished: Bool {
        switch phase {
        case .terminated(let ending):
            ending.byeAfterACK == nil && timers.isEmpty && transactions.allSatisfy(\.isCompleted)
        case .finished: timers.isEmpty && transactions.allSatisfy(\.isCompleted)
        default: false
        }
    }

    /// The ACKs to send again, unchanged, for retransmissions of a 2xx while the INVITE client transaction it
    /// answered lingers (RFC 3261 §13.2.2.4, RFC 6026 §8.4): a driver that drops the session once it has
    /// finished keeps these until each transaction's end, instead of the whole call.
    public var lingeringACKs: [LingeringACK] {
        var lingering: [LingeringACK] = []
        for transaction in transactions where transaction.isCompleted {
            for ack in acks where ack.sequenceNumber == transaction.sequenceNumber {
                lingering.append(
                    LingeringACK(
                        token: transaction.token, remoteTag: ack.remoteTag, request: ack.request, nextHop: ack.nextHop))
            }
        }
        return lingering
    }

    /// Whether the session ended and owes the peer nothing more: no 2xx waits for its ACK, no timer is armed,
    /// and every request it sent has its final response. What may remain only absorbs retransmissions (the
    /// INVITE's transaction in RFC 6026's Accepted state, 64*T1 after a 2xx), so a UA that shuts down
    /// need not wait for it.
    public var isSettled: Bool {
        switch phase {
        case .terminated(let ending):
            ending.byeAfterACK == nil && timers.isEmpty && transactions.allSatisfy(\.isCompleted)
        case .finished: true
        default: false
        }
    }

    /// The negotiated session in force, if any.
    public var negotiatedSession: NegotiatedSession? { offerAnswer.session }

    /// The dialogs the driver should route to this session: the current one and the UAC's other early ones.
    public var dialogIDs: [DialogID] {
        var ids = forks.map(\.dialog.id)
        if let dialog { ids.insert(dialog.id, at: 0) }
        return ids
    }

    /// The timers armed now (for drivers that rebuild their timer wheel, and tests).
    public var armedTimers: [SessionTimer] { timers.armed }
}

// MARK: Shared helpers

extension InviteSession {
    mutating func makeToken() -> RequestToken {
        nextToken &+= 1
        return RequestToken(rawValue: nextToken)
    }

    /// Adds the fields every request of the session carries (User-Agent) and sends `request` in a new client
    /// transaction, remembering `purpose`.
    @discardableResult
    mutating func send(
        _ request: SIPRequest, purpose: ClientTransaction.Purpose, keepingRequest: Bool = true, nextHop: URI? = nil,
        into actions: inout [SessionAction]
    ) -> RequestToken {
        let nextHop = nextHop ?? dialog?.nextHop ?? request.uri
        var request = request
        if let userAgent = configuration.userAgent, !request.headerFields.contains(.userAgent) {
            request.headerFields.append(.userAgent, userAgent)
        }
        if var authenticator, request.method != .cancel {
            _ = try? authenticator.authorize(&request)
            self.authenticator = authenticator
        }
        let token = makeToken()
        let number = (try? request.cseq)??.sequenceNumber ?? 0
        transactions.append(
            ClientTransaction(
                token: token, purpose: purpose, sequenceNumber: number, nextHop: nextHop,
                request: keepingRequest ? request : nil))
        actions.append(.sendRequest(request, token: token, nextHop: nextHop))
        return token
    }

    /// Sends an ACK for a 2xx and keeps it for that 2xx's retransmissions (§13.2.2.4).
    mutating func sendACK(
        _ ack: SIPRequest, remoteTag: String, sequenceNumber: UInt32, nextHop: URI, into actions: inout [SessionAction]
    ) {
        acks.append(SentACK(remoteTag: remoteTag, sequenceNumber: sequenceNumber, request: ack, nextHop: nextHop))
        actions.append(.sendACK(ack, nextHop: nextHop))
    }

    func transactionIndex(_ token: RequestToken) -> Int? {
        transactions.firstIndex { $0.token == token }
    }

    /// A response to `request` with this side's tag in To and the Server field.
    func makeResponse(to request: borrowing SIPRequest, status: Int, reason: String? = nil) -> SIPResponse {
        InviteSession.response(
            to: request, status: status, reason: reason, localTag: localTag,
            server: configuration.responseFields.server)
    }

    /// `makeResponse(to:status:reason:)` from the two fields it reads: called with them from a mutating
    /// method, it does not make the compiler copy the whole session first.
    /// - Parameters:
    ///   - localTag: the tag for a To without one; `nil` when To has this side's tag already.
    ///   - server: the Server field as the configuration wrote it (empty for none).
    static func response(
        to request: borrowing SIPRequest, status: Int, reason: String? = nil, localTag: String?, server: SIPFields
    ) -> SIPResponse {
        var response = SIPResponse(answering: request, status: status, reason: reason, toTag: localTag)
        response.headerFields.appendFields(of: server)
        return response
    }

    /// A response that refuses `request` for an SDP fault (400, 488 with Warning, 491, 500).
    func refuse(_ request: SIPRequest, _ error: SDPError) -> SIPResponse {
        var response = SIPResponse.refusing(request, error, toTag: localTag)
        if error.status == 500 { response.headerFields.append(.retryAfter, RetryAfter(seconds: 1)) }
        return response
    }

    /// A request in the current dialog with the session's Contact and, for INVITE and UPDATE, Allow and
    /// Supported; `nil` when there is no dialog.
    mutating func makeInDialogRequest(_ method: SIPMethod) -> SIPRequest? {
        guard var request = dialog?.makeRequest(method) else { return nil }
        if Dialog.targetRefreshMethods.contains(method) || method == .refer {
            request.headerFields.append(.contact, configuration.contact)
        }
        if method == .invite || method == .update {
            request.headerFields.append(.allow, configuration.allowedMethods.headerValue)
            request.headerFields.append(.supported, configuration.supportedHeaderValueWithout100rel)
        }
        return request
    }

    /// Ends the call once: records `reason`, tells the TU, disarms the timers of the call. With `byeAfterACK`
    /// a 2xx still waiting for its ACK (in `connecting`) keeps its timers, and a BYE with those Reason values
    /// goes once the ACK comes or is given up on.
    mutating func end(_ reason: consuming EndReason, byeAfterACK: [Reason]? = nil, into actions: inout [SessionAction])
    {
        var forks: [EarlyDialog] = []
        var endsNow = true
        var byeAfterACKRecord: ByeAfterACK?
        var waitsForACK = false
        switch phase {
        case .terminated(let ended):
            endsNow = false
            waitsForACK = ended.byeAfterACK != nil
        case .finished:
            endsNow = false
        case .connecting(let waiting):
            if let byeAfterACK {
                byeAfterACKRecord = ByeAfterACK(waiting: waiting, reasons: byeAfterACK)
                waitsForACK = true
            }
        case .calling(let attempt), .earlyOutgoing(let attempt):
            forks = attempt.forks
        default:
            break
        }
        if endsNow {
            // The reason taken (consumed): one copy for the TU, the reason itself for the phase.
            actions.append(.event(.ended(copy reason)))
            phase = .terminated(Ending(reason: reason, byeAfterACK: byeAfterACKRecord))
        }
        timers.cancelAll(keeping: waitsForACK ? [.retransmit2xx, .ackTimeout] : [], into: &actions)
        queuedOffer = nil
        glareRetry = nil
        for fork in forks { actions.append(.dialogTerminated(fork.dialog.id)) }
        if role == .uac { dialog?.state = .terminated }
    }

    /// Says `finished` (and stops routing the dialog) once nothing is left to do. An INVITE transaction that
    /// only lingers in RFC 6026's Accepted state (64*T1 after its 2xx) does not hold the call up: its ACKs stay
    /// (`lingeringACKs`) for the 2xx retransmissions it may still pass up.
    mutating func finishIfDone(into actions: inout [SessionAction]) {
        // `isFinished` spelt out: through the getter the whole session was copied on each call.
        guard case .terminated(let ending) = phase, ending.byeAfterACK == nil, timers.isEmpty,
            transactions.allSatisfy(\.isCompleted)
        else { return }
        phase = .finished(ending.reason)
        if transactions.isEmpty { acks = [] }
        outgoingInviteStorage = nil
        dialog?.state = .terminated
        // The id alone: `let dialog` would copy the whole dialog.
        if isDialogAnnounced, let id = dialog?.id { actions.append(.dialogTerminated(id)) }
        actions.append(.finished)
    }

    /// Announces the current dialog to the driver once.
    mutating func announceDialog(into actions: inout [SessionAction]) {
        guard !isDialogAnnounced, let id = dialog?.id else { return }
        isDialogAnnounced = true
        actions.append(.dialogCreated(id))
    }

    /// The next CSeq number of the current dialog, taken.
    mutating func takeLocalSequence() -> UInt32 {
        let next = (dialog?.localSequence ?? 0) &+ 1
        dialog?.localSequence = next
        return next
    }
}
