/// The RFC 3264 offer/answer state of one session (one dialog), a value: it makes offers and answers from
/// its configuration, takes the other side's, and says what was negotiated. Pure: randomness for the o=
/// session id and SRTP keys comes from the injected sources; there is no I/O and no clock.
///
/// One offer may be outstanding at a time (RFC 3264 §4, RFC 6337 §3.2): making or receiving an offer while
/// one awaits its answer throws `offerPending` (491: ours is pending, glare) or `offerNotAnswered` (500:
/// theirs is). A failed exchange (the offer refused with 488, 491, a timeout) is dropped with
/// `cancelPendingOffer()`, which leaves the last negotiated session (its DTLS association too) in force.
///
/// Versions (RFC 3264 §8): every description we send carries the same o= session id; the version grows by
/// one whenever the content differs from the last description we sent, and stays when it does not (an
/// unchanged answer re-sent in a 200 after a 183, a session refresh).
///
/// Keep one value per dialog and mutate it in place: a copy carries a copy of the key source's state.
public struct OfferAnswer: Sendable {
    /// Where the offer/answer exchange stands.
    public enum State: Sendable, Hashable {
        /// No offer outstanding.
        case stable
        /// We sent an offer and wait for its answer.
        case localOfferPending
        /// We received an offer and have not answered it.
        case remoteOfferPending
    }

    /// An answer to send and what it negotiates.
    public struct Answer: Sendable, Hashable {
        /// The answer to send.
        public var sessionDescription: SessionDescription
        /// What it negotiates.
        public var session: NegotiatedSession
    }

    /// What we offer and accept; changes apply from the next offer or answer.
    public var configuration: OfferAnswerConfiguration {
        didSet { configurationChanges &+= 1 }
    }
    /// Counts writes to `configuration`: an answer prepared before one is made again.
    var configurationChanges: UInt32 = 0
    /// Where the exchange stands.
    public private(set) var state: State = .stable
    /// The last description we made (offer or answer), as sent.
    public private(set) var localDescription: SessionDescription? {
        get { kept.local }
        set { kept.local = newValue }
    }
    /// The last description accepted from the other side (offer or answer).
    public private(set) var remoteDescription: SessionDescription? {
        get { kept.remote }
        set { kept.remote = newValue }
    }
    /// `localDescription` and `remoteDescription` in their smallest form: kept for the session's life, read rarely.
    private var kept = KeptDescriptions()
    /// How many byte arrays hold the kept descriptions (tests: one for both).
    package var keptByteArrayCount: Int { kept.byteArrayCount }
    /// The session in force: set by each completed exchange.
    public private(set) var session: NegotiatedSession?
    /// The other side's offer while it waits for our answer (`remoteOfferPending`), as parsed when received.
    public var pendingRemoteOffer: SessionDescription? { state == .remoteOfferPending ? pendingOffer : nil }
    /// True when we hold the call (set by `makeHoldOffer()`, cleared by `makeResumeOffer()`).
    public private(set) var isLocalHold = false
    /// True when the other side's last offer held the call (sendonly, inactive or 0.0.0.0).
    public private(set) var isRemoteHold = false

    var keySource: any SRTPKeySource
    /// The o= session id, fixed for the session's life.
    let sessionID: UInt64
    /// The highest o= version used so far.
    var version: UInt64
    /// Our SRTP master key and salt per suite, reused by later offers and answers.
    var localKeys: [CryptoSuite: [UInt8]] = [:]
    /// Our `a=tls-id` for DTLS-SRTP (RFC 8842), made when first needed; a new one names a new association.
    var dtlsTLSID: TLSID?
    /// The offer awaiting its answer (ours or theirs), with the answer prepared for theirs.
    var pending: PendingOffer? = nil
    /// The state to return to when the pending offer fails.
    @OutOfLine var savedLocalDescription: SessionDescription? = nil
    var savedLocalHold = false
    /// Our last offer once answered, so that a repeated or replaced answer (183 then 200) can be taken.
    @OutOfLine var answeredOffer: SessionDescription? = nil
    /// The offer awaiting its answer (ours or theirs).
    var pendingOffer: SessionDescription? {
        get { pending?.offer }
        set { pending = newValue.map { PendingOffer($0, preparedAnswer: nil) } }
    }

    /// An answer built for the pending offer, and the inputs it depends on besides the offer (our keys only grow:
    /// the ones it used are still there).
    struct PreparedAnswer: Sendable {
        var description: SessionDescription
        var session: NegotiatedSession
        /// `configurationChanges` when it was made.
        var configuration: UInt32
        var isLocalHold: Bool
    }

    /// An offer awaiting its answer, kept out of line (the engine stays small between exchanges), with the answer
    /// `receiveOffer(_:)` built to check the other side's: `makeAnswer()` uses it when the configuration and hold
    /// state are still the same, instead of negotiating again. One allocation holds both.
    final class PendingOffer: @unchecked Sendable {
        // Safe to send: `offer` is a constant; `preparedAnswer` is only taken out (`takePreparedAnswer()`) after
        // `isKnownUniquelyReferenced` showed that no other engine value holds this object; otherwise it is only read.
        let offer: SessionDescription
        var preparedAnswer: PreparedAnswer?
        /// For an offer of ours: what its answer is read against, when known as it was made.
        let terms: OfferTerms?

        init(_ offer: SessionDescription, preparedAnswer: PreparedAnswer?, terms: OfferTerms? = nil) {
            self.offer = offer
            self.preparedAnswer = preparedAnswer
            self.terms = terms
        }
    }

    /// The prepared answer, gone from the engine (moved out when this engine alone holds it).
    mutating func takePreparedAnswer() -> PreparedAnswer? {
        guard pending?.preparedAnswer != nil else { return nil }
        if isKnownUniquelyReferenced(&pending) { return pending?.preparedAnswer.take() }
        return pending?.preparedAnswer
    }

    /// - Parameters:
    ///   - configuration: what to offer and accept.
    ///   - random: the source of the o= session id, drawn once here (e.g. a generator over OpenSSL's
    ///     `RAND_bytes`).
    ///   - keySource: the source of SRTP master keys.
    public init(
        configuration: OfferAnswerConfiguration, random: some RandomNumberGenerator & Sendable,
        keySource: some SRTPKeySource
    ) {
        var generator = random
        // Below 2^62 so that the version can grow for the whole session without overflow.
        let id = generator.next() >> 2
        self.configuration = configuration
        self.keySource = keySource
        self.sessionID = id
        self.version = id
    }

    /// Makes an offer (the initial one, or a re-offer keeping every m= line of the session in place) with the
    /// current hold state.
    /// - Throws: `offerPending` or `offerNotAnswered` when an offer is outstanding; `keySourceFailed`.
    public mutating func makeOffer() throws(SDPError) -> SessionDescription {
        try makeOffer(hold: isLocalHold)
    }

    /// Makes a hold re-offer (RFC 3264 §8.4): `sendonly`, or `inactive` when the other side already holds.
    public mutating func makeHoldOffer() throws(SDPError) -> SessionDescription {
        try makeOffer(hold: true)
    }

    /// Makes a resume re-offer: `sendrecv`, or `recvonly` when the other side still holds.
    public mutating func makeResumeOffer() throws(SDPError) -> SessionDescription {
        try makeOffer(hold: false)
    }

    private mutating func makeOffer(hold: Bool) throws(SDPError) -> SessionDescription {
        try checkStable()
        let previous = isLocalHold
        isLocalHold = hold
        do {
            let (built, terms) = try buildOffer()
            savedLocalDescription = localDescription
            savedLocalHold = previous
            let offer = commit(built)
            pending = PendingOffer(offer, preparedAnswer: nil, terms: terms)
            state = .localOfferPending
            return offer
        } catch {
            isLocalHold = previous
            throw error
        }
    }

    /// Takes the other side's answer to our offer (in a 18x or 2xx, an ACK, a PRACK or an UPDATE response).
    /// A repeat of the answer already taken returns the same session; a changed one while no new offer is out
    /// (a 200 answering differently from an unreliable 183) replaces it.
    /// - Throws: `noOfferPending`; `answerMismatch`, `noCommonCodec`, `srtpRequired`, ... (488) when the
    ///   answer cannot be used (the offer then still awaits `cancelPendingOffer()` or another answer).
    public mutating func receiveAnswer(_ answer: SessionDescription) throws(SDPError) -> NegotiatedSession {
        let offer: SessionDescription
        switch state {
        case .localOfferPending:
            guard let pendingOffer else { throw SDPError(.noOfferPending, "no offer of ours is outstanding") }
            offer = pendingOffer
        case .stable:
            guard let answeredOffer, let session else {
                throw SDPError(.noOfferPending, "no offer of ours is outstanding")
            }
            if kept.remoteIsSame(as: answer) { return session }
            offer = answeredOffer
        case .remoteOfferPending:
            throw SDPError(.noOfferPending, "the other side's offer awaits our answer")
        }
        let negotiated: NegotiatedSession
        let terms = state == .localOfferPending ? pending?.terms : nil
        if let wire = answer.wire, let taken = negotiate(answerWire: wire, to: offer, terms: terms) {
            negotiated = taken
        } else {
            negotiated = try negotiate(answer: answer, to: offer)
        }
        remoteDescription = answer
        session = negotiated
        answeredOffer = offer
        pendingOffer = nil
        savedLocalDescription = nil
        state = .stable
        return negotiated
    }

    /// Takes an offer from the other side and checks that it can be answered; `makeAnswer()` then makes the
    /// answer. Nothing changes when it throws.
    /// - Throws: `offerPending` (491, glare) or `offerNotAnswered` (500) when an offer is outstanding; 400 for
    ///   a malformed known attribute; 488 when the offer cannot be accepted (`noCommonCodec`,
    ///   `unsupportedTransport`, `srtpRequired`, `noAcceptableCrypto`, `noAcceptableMedia`).
    public mutating func receiveOffer(_ offer: SessionDescription) throws(SDPError) {
        try checkStable()
        let (description, negotiated) = try buildAnswer(to: offer)
        pending = PendingOffer(
            offer,
            preparedAnswer: PreparedAnswer(
                description: description, session: negotiated, configuration: configurationChanges,
                isLocalHold: isLocalHold))
        state = .remoteOfferPending
    }

    /// Makes the answer to the offer taken by `receiveOffer(_:)`, with the current hold state, and puts the
    /// negotiated session in force. An answer in a 183 is an answer like any other: re-send
    /// `localDescription` unchanged in the 200.
    /// - Throws: `noOfferPending` when no offer of theirs is outstanding; the errors of `receiveOffer(_:)`.
    public mutating func makeAnswer() throws(SDPError) -> Answer {
        guard state == .remoteOfferPending, let offer = pendingOffer else {
            throw SDPError(.noOfferPending, "no offer of the other side is outstanding")
        }
        let description: SessionDescription
        let negotiated: NegotiatedSession
        if let prepared = takePreparedAnswer(), prepared.isLocalHold == isLocalHold,
            prepared.configuration == configurationChanges
        {
            (description, negotiated) = (prepared.description, prepared.session)
        } else {
            (description, negotiated) = try buildAnswer(to: offer)
        }
        // Both descriptions change: kept together, in one step.
        let (answer, _) = stamp(description)
        kept.set(local: answer, remote: offer)
        session = negotiated
        isRemoteHold = negotiated.isRemoteHold
        answeredOffer = nil
        pendingOffer = nil
        savedLocalDescription = nil
        state = .stable
        return Answer(sessionDescription: answer, session: negotiated)
    }

    /// Drops the outstanding offer (ours refused or timed out, or theirs refused): back to `stable` with the
    /// last negotiated session, local description, hold state and DTLS association (our tls-id) in force. The o=
    /// version is not reused.
    public mutating func cancelPendingOffer() {
        switch state {
        case .stable: return
        case .localOfferPending:
            localDescription = savedLocalDescription
            isLocalHold = savedLocalHold
        case .remoteOfferPending: break
        }
        // An offer that named a new DTLS association (a new tls-id, either side's) leaves the one in force.
        if let dtls = session?.dtls { dtlsTLSID = dtls.localTLSID }
        pendingOffer = nil
        savedLocalDescription = nil
        state = .stable
    }

    private func checkStable() throws(SDPError) {
        switch state {
        case .stable: return
        case .localOfferPending: throw SDPError(.offerPending, "our offer awaits its answer")
        case .remoteOfferPending: throw SDPError(.offerNotAnswered, "the other side's offer awaits our answer")
        }
    }

    /// Stamps `description` with our o= line and records it as sent: the version grows by one when the content
    /// differs from the last description sent, and stays when it does not.
    private mutating func commit(_ description: SessionDescription) -> SessionDescription {
        let (candidate, isNew) = stamp(description)
        if isNew { localDescription = candidate }
        return candidate
    }

    /// `description` with our o= line stamped as `commit(_:)` does, not yet recorded as sent, and whether it is
    /// new (not the last description sent, read back).
    private mutating func stamp(_ description: SessionDescription) -> (SessionDescription, isNew: Bool) {
        var candidate = description
        if let previous = localDescription {
            let previousVersion = previous.sessionVersion
            candidate.setSessionVersion(previousVersion)
            if candidate == previous { return (previous, false) }
            version = max(version, previousVersion) &+ 1
        }
        candidate.setSessionVersion(version)
        return (candidate, true)
    }
}
