public import SIPMessage

/// When to use reliable provisional responses (RFC 3262, option tag `100rel`).
public enum ReliableProvisionalPolicy: Sendable, Hashable {
    /// Never: a request that requires 100rel gets 420.
    case disabled
    /// When the other side requires it, or (UAS) when a provisional response carries SDP and the UAC
    /// supports it. The UAC sends `Supported: 100rel`.
    case supported
    /// Always: the UAC sends `Require: 100rel`; the UAS sends every provisional response but 100 reliably
    /// and answers an INVITE that does not support 100rel with 421 (RFC 3262 §3).
    case required
}

/// Session timer preferences (RFC 4028).
public struct SessionTimerConfiguration: Sendable, Hashable {
    /// Which side this one would like to refresh, when it gets to choose.
    public enum Refresher: Sendable, Hashable {
        /// This side refreshes.
        case local
        /// The other side refreshes.
        case remote
        /// The other side chooses (UAC), or the UAC refreshes when it supports timers (UAS).
        case unspecified
    }

    /// How refreshes are sent.
    public enum RefreshMethod: Sendable, Hashable {
        /// UPDATE without SDP when the other side allows UPDATE, re-INVITE otherwise (RFC 4028 §9 prefers
        /// UPDATE).
        case automatic
        /// Always re-INVITE, with the current SDP (the version unchanged when nothing changed).
        case invite
    }

    /// The session interval asked for, in seconds (Session-Expires; 1800 by default, RFC 4028 §4).
    public var interval: UInt32
    /// The smallest interval accepted, in seconds (Min-SE; 90 by default and at least 90, RFC 4028 §5).
    public var minimumInterval: UInt32
    /// Who should refresh.
    public var preferredRefresher: Refresher
    /// How to refresh.
    public var refreshMethod: RefreshMethod

    /// - Parameters:
    ///   - interval: Session-Expires in seconds.
    ///   - minimumInterval: Min-SE in seconds (raised to 90 if lower).
    ///   - preferredRefresher: who should refresh.
    ///   - refreshMethod: UPDATE or re-INVITE.
    public init(
        interval: UInt32 = 1800, minimumInterval: UInt32 = 90, preferredRefresher: Refresher = .unspecified,
        refreshMethod: RefreshMethod = .automatic
    ) {
        self.minimumInterval = max(90, minimumInterval)
        self.interval = max(interval, self.minimumInterval)
        self.preferredRefresher = preferredRefresher
        self.refreshMethod = refreshMethod
    }
}

/// What an INVITE session does on its own: the local Contact, extensions, timers, and how it answers offers.
///
/// Its values sit in one shared storage object (copied on write): a session keeps its configuration for its
/// whole life, and the sessions a driver makes from the same configuration share one copy of it instead of
/// each holding the Contact, Allow list and timers inline.
public struct InviteSessionConfiguration: Sendable {
    /// The values the public properties read and write.
    struct Fields: Sendable {
        var contact: NameAddress
        var reliableProvisionalResponses: ReliableProvisionalPolicy
        var sessionTimer: SessionTimerConfiguration?
        var answersOffersAutomatically: Bool
        var allowedMethods: [SIPMethod]
        var userAgent: String?
        var t1: Duration
        var t2: Duration
        /// 64*T1, worked out when T1 is set: multiplying a `Duration` takes 128-bit arithmetic through generic
        /// code, and a call waits that long for its ACK.
        var t1Times64: Duration = .seconds(32)
    }

    /// The fields on the heap, shared by copies until one of them writes.
    final class Storage: @unchecked Sendable {
        // Safe to send: `fields` and `responseFields` are written only through `uniqueStorage`, after
        // `isKnownUniquelyReferenced` showed that no other value (on this thread or another) holds the storage.
        @exclusivity(unchecked) var fields: Fields
        /// Header fields of responses, written from `fields` once for every session sharing the storage; the
        /// setters of the values they are made of write them again (into a new box: a reader may hold this one).
        @exclusivity(unchecked) var responseFields: ResponseFields

        init(_ fields: Fields) {
            self.fields = fields
            self.responseFields = ResponseFields(WrittenFields(fields))
        }

        /// Writes the response fields again with `write`, into a box of their own.
        func rewriteResponseFields(_ write: (inout WrittenFields, Fields) -> Void) {
            var written = responseFields.written
            write(&written, fields)
            responseFields = ResponseFields(written)
        }

        /// A copy of `other`, its response fields shared (copied on write) rather than written again.
        init(copying other: Storage) {
            self.fields = other.fields
            self.responseFields = other.responseFields
        }
    }

    /// The header fields of the responses a session sends, in a box: a session takes them with one retain
    /// rather than a copy of every field list (and its destruction after).
    final class ResponseFields: Sendable {
        let written: WrittenFields

        init(_ written: WrittenFields) {
            self.written = written
        }

        var server: SIPFields { written.server }
        var contact: SIPFields { written.contact }
        var success: SIPFields { written.success }
        var successWithSDP: SIPFields { written.successWithSDP }

        /// See `WrittenFields.sessionTimerFields(_:requiringTimer:)`.
        func sessionTimerFields(_ expires: SessionExpires, requiringTimer: Bool) -> SIPFields? {
            written.sessionTimerFields(expires, requiringTimer: requiringTimer)
        }

        /// The Session-Expires value at the configured interval naming `refresher`, as made once for the
        /// fields; `nil` without session timers.
        func sessionExpires(refresher: SessionExpires.Refresher) -> SessionExpires? {
            written.sessionTimer.first { $0.refresher == refresher }?.expires
        }
    }

    /// Header fields of the responses a session sends, written as `SIPFields.append` writes them.
    struct WrittenFields: Sendable {
        /// Server, when there is a User-Agent value; empty otherwise.
        var server = SIPFields()
        /// Contact.
        var contact = SIPFields()
        /// Allow and Supported: what a 2xx to INVITE adds to the fields of the dialog's responses.
        var success = SIPFields()
        /// `success` and `Content-Type: application/sdp`, for a 2xx with SDP.
        var successWithSDP = SIPFields()
        /// The Session-Expires of a 2xx to INVITE at the configured interval, one per refresher, alone and
        /// followed by `Require: timer`; empty without session timers.
        var sessionTimer:
            [(
                expires: SessionExpires, refresher: SessionExpires.Refresher, alone: SIPFields,
                requiringTimer: SIPFields
            )] = []

        init(_ fields: Fields) {
            writeServer(fields)
            writeContact(fields)
            writeSuccess(fields)
        }

        mutating func writeServer(_ fields: Fields) {
            server = SIPFields()
            if let userAgent = fields.userAgent { server.append(.server, userAgent) }
        }

        mutating func writeContact(_ fields: Fields) {
            contact = SIPFields()
            contact.append(.contact, fields.contact)
        }

        mutating func writeSuccess(_ fields: Fields) {
            success = SIPFields()
            success.append(.allow, fields.allowedMethods.headerValue)
            success.append(
                .supported,
                InviteSessionConfiguration.supportedHeaderValue(
                    reliable: fields.reliableProvisionalResponses, timer: fields.sessionTimer != nil))
            successWithSDP = success
            successWithSDP.setSDPContentType()
            sessionTimer = []
            if let interval = fields.sessionTimer?.interval {
                for refresher in [SessionExpires.Refresher.uac, .uas] {
                    let expires = SessionExpires(deltaSeconds: interval, refresher: refresher)
                    var alone = SIPFields()
                    alone.append(.sessionExpires, expires)
                    var requiringTimer = alone
                    requiringTimer.append(.require, "timer")
                    sessionTimer.append((expires, refresher, alone, requiringTimer))
                }
            }
        }

        /// The Session-Expires field of `expires` (with `Require: timer` when `requiringTimer`) as written once;
        /// `nil` for a value not written beforehand.
        func sessionTimerFields(_ expires: SessionExpires, requiringTimer: Bool) -> SIPFields? {
            for written in sessionTimer where written.expires == expires {
                return requiringTimer ? written.requiringTimer : written.alone
            }
            return nil
        }
    }

    private var storage: Storage

    /// The storage as one this value alone holds (copied first when shared): what the setters write to.
    private var uniqueStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
            return storage
        }
    }

    /// Header fields of responses made from this configuration.
    var responseFields: ResponseFields { storage.responseFields }

    /// The Contact of dialog-creating and target-refresh messages: where the other side sends requests.
    public var contact: NameAddress {
        get { storage.fields.contact }
        set {
            let storage = uniqueStorage
            storage.fields.contact = newValue
            storage.rewriteResponseFields { $0.writeContact($1) }
        }
    }
    /// Reliable provisional responses (RFC 3262).
    public var reliableProvisionalResponses: ReliableProvisionalPolicy {
        get { storage.fields.reliableProvisionalResponses }
        set {
            let storage = uniqueStorage
            storage.fields.reliableProvisionalResponses = newValue
            storage.rewriteResponseFields { $0.writeSuccess($1) }
        }
    }
    /// Session timers (RFC 4028); `nil` turns them off (`timer` is then not supported).
    public var sessionTimer: SessionTimerConfiguration? {
        get { storage.fields.sessionTimer }
        set {
            let storage = uniqueStorage
            storage.fields.sessionTimer = newValue
            storage.rewriteResponseFields { $0.writeSuccess($1) }
        }
    }
    /// Whether re-offers (re-INVITE) are answered at once from the offer/answer configuration (`true`), or
    /// reported with `offerReceived` and answered by `answerOffer()` (`false`). UPDATE offers are always
    /// answered at once (RFC 3311 §5.2).
    public var answersOffersAutomatically: Bool {
        get { storage.fields.answersOffersAutomatically }
        set { uniqueStorage.fields.answersOffersAutomatically = newValue }
    }
    /// The Allow header field (RFC 3261 §20.5) of INVITEs, 2xx responses and OPTIONS answers.
    public var allowedMethods: [SIPMethod] {
        get { storage.fields.allowedMethods }
        set {
            let storage = uniqueStorage
            storage.fields.allowedMethods = newValue
            storage.rewriteResponseFields { $0.writeSuccess($1) }
        }
    }
    /// User-Agent of requests and Server of responses, when set.
    public var userAgent: String? {
        get { storage.fields.userAgent }
        set {
            let storage = uniqueStorage
            storage.fields.userAgent = newValue
            storage.rewriteResponseFields { $0.writeServer($1) }
        }
    }
    /// RFC 3261's T1 (500 ms): 2xx retransmissions start at it, and 64*T1 bounds the wait for ACK and PRACK.
    public var t1: Duration {
        get { storage.fields.t1 }
        set {
            let storage = uniqueStorage
            storage.fields.t1 = newValue
            storage.fields.t1Times64 = newValue * 64
        }
    }
    /// 64*T1: how long a 2xx waits for its ACK and a reliable provisional response for its PRACK.
    var t1Times64: Duration { storage.fields.t1Times64 }
    /// RFC 3261's T2 (4 s): the longest interval between 2xx retransmissions (§13.3.1.4).
    public var t2: Duration {
        get { storage.fields.t2 }
        set { uniqueStorage.fields.t2 = newValue }
    }

    /// - Parameters:
    ///   - contact: the local Contact.
    ///   - reliableProvisionalResponses: the 100rel policy.
    ///   - sessionTimer: session timer preferences, `nil` for none.
    ///   - answersOffersAutomatically: whether re-offers are answered without the TU.
    ///   - userAgent: User-Agent/Server value.
    public init(
        contact: NameAddress, reliableProvisionalResponses: ReliableProvisionalPolicy = .supported,
        sessionTimer: SessionTimerConfiguration? = SessionTimerConfiguration(),
        answersOffersAutomatically: Bool = true, userAgent: String? = nil
    ) {
        storage = Storage(
            Fields(
                contact: contact, reliableProvisionalResponses: reliableProvisionalResponses,
                sessionTimer: sessionTimer, answersOffersAutomatically: answersOffersAutomatically,
                allowedMethods: Self.defaultAllowedMethods, userAgent: userAgent, t1: .milliseconds(500),
                t2: .seconds(4)))
    }

    /// One array for every session's default Allow list (a literal in `init` would allocate one per call).
    static let defaultAllowedMethods: [SIPMethod] = [
        .invite, .ack, .cancel, .bye, .options, .info, .update, .prack, .refer, .notify, .message,
    ]

    /// The Allow value of `defaultAllowedMethods`, joined once.
    static let defaultAllowHeaderValue = defaultAllowedMethods.map(\.rawValue).joined(separator: ", ")

    /// The option tags this side supports (RFC 3261 §20.37): 100rel, timer, replaces and norefersub as
    /// configured.
    public var supportedExtensions: [String] {
        var tags: [String] = []
        if reliableProvisionalResponses != .disabled { tags.append("100rel") }
        if sessionTimer != nil { tags.append("timer") }
        tags.append("replaces")
        tags.append("norefersub")
        return tags
    }

    /// `supportedExtensions` as the value of a Supported header field (comma-separated), without building
    /// the list.
    var supportedHeaderValue: String {
        Self.supportedHeaderValue(reliable: reliableProvisionalResponses, timer: sessionTimer != nil)
    }

    /// `supportedHeaderValue` for a 100rel policy and whether session timers are on.
    static func supportedHeaderValue(reliable: ReliableProvisionalPolicy, timer: Bool) -> String {
        switch (reliable != .disabled, timer) {
        case (true, true): "100rel, timer, replaces, norefersub"
        case (true, false): "100rel, replaces, norefersub"
        case (false, true): "timer, replaces, norefersub"
        case (false, false): "replaces, norefersub"
        }
    }

    /// `supportedExtensions` without 100rel, as a Supported header field value: what requests after the
    /// initial INVITE (and an initial INVITE that requires 100rel, with Require) say.
    var supportedHeaderValueWithout100rel: String {
        sessionTimer != nil ? "timer, replaces, norefersub" : "replaces, norefersub"
    }
}

/// The first INVITE of an outgoing call: who calls whom, where to, with which Call-ID and tag.
public struct OutgoingCall: Sendable {
    /// The Request-URI.
    public var requestURI: URI
    /// From, without tag: this side's address of record.
    public var from: NameAddress
    /// To, without tag: the callee's address.
    public var to: NameAddress
    /// A new Call-ID (SIPCore's `makeCallID()`).
    public var callID: String
    /// A new From tag (SIPCore's `makeTag()`).
    public var localTag: String
    /// The CSeq number of the INVITE (below 2^31, RFC 3261 §8.1.1.5).
    public var initialSequence: UInt32
    /// A pre-existing route set (outbound proxy, Service-Route), first hop first, `;lr` on loose routers
    /// (§8.1.2).
    public var routeSet: [NameAddress]
    /// Whether the INVITE carries the offer (`true`) or leaves it to the 2xx or a reliable 1xx (a late
    /// offer, RFC 3261 §13.2.1).
    public var offersInInvite: Bool
    /// Extra header fields for the INVITE: Replaces and Referred-By of a transfer, P-Asserted-Identity,
    /// Subject, custom X- fields.
    public var headers: [SIPField]

    /// - Parameters:
    ///   - requestURI: the Request-URI.
    ///   - from: this side's address (no tag).
    ///   - to: the callee's address (no tag).
    ///   - callID: a new Call-ID.
    ///   - localTag: a new tag.
    ///   - initialSequence: the INVITE's CSeq number.
    ///   - routeSet: pre-existing Route values.
    ///   - offersInInvite: whether the INVITE carries the offer.
    ///   - headers: extra header fields.
    public init(
        requestURI: URI, from: NameAddress, to: NameAddress, callID: String, localTag: String,
        initialSequence: UInt32 = 1, routeSet: [NameAddress] = [], offersInInvite: Bool = true,
        headers: [SIPField] = []
    ) {
        self.requestURI = requestURI
        self.from = from
        self.to = to
        self.callID = callID
        self.localTag = localTag
        self.initialSequence = min(initialSequence, CSeq.maximum)
        self.routeSet = routeSet
        self.offersInInvite = offersInInvite
        self.headers = headers
    }
}
