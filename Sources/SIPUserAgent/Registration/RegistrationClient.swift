public import SIPAuthentication
public import SIPMessage

/// The registration state machine (RFC 3261 §10.2; RFC 5626 keep-alive and re-registration), sans-I/O:
/// the driver sends the REGISTERs it asks for (each in a new client transaction, with a fresh Via), feeds
/// back the final responses, timeouts and transport errors, runs its one timer, and reports flow deaths.
///
/// One Call-ID and From tag for the whole registration (§10.2.4), CSeq counting up; credentials through
/// the `DigestAuthenticator` (401/407 answered once per challenge); 423 answered with Min-Expires; refresh
/// before expiry by a margin; failures retried with capped exponential back-off, except 403/404 and
/// authentication failures, which stop.
public struct RegistrationClient: Sendable {
    public enum Action: Sendable {
        /// Send this REGISTER in a new client transaction.
        case send(SIPRequest)
        /// Arm the registration's single timer (replacing an armed one).
        case startTimer(after: Duration)
        /// Disarm it.
        case cancelTimer
        /// The state changed; report it.
        case stateChanged(RegistrationState)
    }

    public private(set) var configuration: RegistrationConfiguration
    public private(set) var state: RegistrationState = .idle
    /// The contact currently bound (the configured one, or the public address learned from the Via).
    public private(set) var contact: SIPURI
    public let callID: String
    public let fromTag: String
    private var cseq: UInt32 = 0
    private var authenticator: DigestAuthenticator
    private var lastRequest: SIPRequest?
    private var requestedExpires: UInt32
    private var retryDelay: Duration
    private var intervalRetries = 0
    private var stopping = false
    private var timerPurpose: TimerPurpose?
    private var isBound = false
    /// A contact the next REGISTER removes (`;expires=0`) while binding the new one: a replaced push token.
    private var replacedContact: SIPURI?
    /// What the registrar's last 2xx said of push (RFC 8599 §5.4, Feature-Caps): `+sip.pns` present.
    public private(set) var registrarSupportsPush = false
    /// `+sip.pnsreg`'s value: the registrar wants binding refreshes at least this often, in seconds.
    public private(set) var pushRefreshInterval: UInt32?
    /// Whether the registrar confirmed outbound (RFC 5626 §4.2.1: `Require: outbound` in the 200, or
    /// `Supported: outbound` with our reg-id kept).
    public private(set) var isOutbound = false
    /// The 200's `Flow-Timer` (RFC 5626 §4.4.1): how many seconds the edge proxy waits for keep-alives.
    public private(set) var flowTimer: UInt32?
    /// Replacements of a broken outbound flow that failed in a row (RFC 5626 §4.5's consecutive-failures).
    private var flowFailures = 0
    /// Whether the REGISTER on its way replaces a broken outbound flow.
    private var isRecoveringFlow = false
    /// The state of the jitter of §4.5's back-off (SplitMix64 over the seed the driver gave).
    private var jitterState: UInt64

    private enum TimerPurpose: Sendable {
        case refresh
        case retry
    }

    /// - Parameters:
    ///   - callID/fromTag: random values from the driver (they identify the registration).
    ///   - authenticator: answers 401/407 with the account's credentials.
    ///   - seed: random bits for the jitter of RFC 5626 §4.5's back-off (a fixed one gives a fixed jitter).
    public init(
        configuration: RegistrationConfiguration, callID: String, fromTag: String, authenticator: DigestAuthenticator,
        seed: UInt64 = 0
    ) {
        self.jitterState = seed
        self.configuration = configuration
        self.contact = configuration.contact
        self.callID = callID
        self.fromTag = fromTag
        self.authenticator = authenticator
        self.requestedExpires = configuration.expires
        self.retryDelay = configuration.initialRetryDelay
    }

    // MARK: Commands

    /// Registers (or re-registers now).
    public mutating func start() -> [Action] {
        stopping = false
        return sendRegister(expires: requestedExpires, announce: .registering)
    }

    /// Removes the binding (Expires: 0) if one may exist; reports `unregistered` directly otherwise.
    public mutating func stop() -> [Action] {
        stopping = true
        var actions: [Action] = timerPurpose == nil ? [] : [.cancelTimer]
        timerPurpose = nil
        guard isBound || lastRequest != nil else {
            state = .unregistered
            actions.append(.stateChanged(.unregistered))
            return actions
        }
        actions += sendRegister(expires: 0, announce: .unregistering)
        return actions
    }

    /// The driver learned a new local contact (a new flow, a new listening address): re-register with it.
    public mutating func updateContact(_ newContact: SIPURI) -> [Action] {
        guard newContact != contact else { return [] }
        contact = newContact
        guard !stopping, state != .idle else { return [] }
        return sendRegister(expires: requestedExpires, announce: .registering)
    }

    /// The push token changed (RFC 8599 §4.1): bind `newContact` and remove the old binding in the same
    /// REGISTER, so exactly one remains.
    public mutating func replaceContact(_ newContact: SIPURI) -> [Action] {
        guard newContact != contact else { return [] }
        if isBound { replacedContact = contact }
        contact = newContact
        guard !stopping, state != .idle else { return [] }
        return sendRegister(expires: requestedExpires, announce: nil)
    }

    /// The REGISTER `request` (the last one asked for) leaves on a new flow whose local address is
    /// `newContact` (a TCP or TLS connection that replaced a broken one, RFC 5626 §4.5): the binding names
    /// that flow. Returns the request with its Contact rewritten, its parameters kept; the client answers
    /// challenges with it from now on.
    public mutating func flowChanged(contact newContact: SIPURI, in request: SIPRequest) -> SIPRequest {
        contact = newContact
        var request = request
        // The binding is the last Contact (a replaced push token's removal, `;expires=0`, comes first).
        var contacts = (try? request.contacts) ?? []
        guard case .address(var binding)? = contacts.last else { return request }
        binding.uri = .sip(newContact)
        contacts[contacts.count - 1] = .address(binding)
        request.headerFields.removeAll(.contact)
        for contact in contacts { request.headerFields.append(.contact, contact) }
        if lastRequest.map({ (try? $0.cseq) == (try? request.cseq) }) == true { lastRequest = request }
        return request
    }

    // MARK: Events

    /// A final response to the last REGISTER (provisional ones are ignored).
    public mutating func receive(_ response: SIPResponse) -> [Action] {
        guard response.statusCode >= 200, let request = lastRequest else { return [] }
        guard (try? response.cseq)?.sequenceNumber == cseq, (try? response.callID) == callID else { return [] }
        switch response.statusCode {
        case 200..<300:
            return accepted(response, for: request)
        case 401, 407:
            do {
                let retry = try authenticator.respond(to: response, for: request)
                return resend(retry)
            } catch {
                return fail(
                    RegistrationError(.authenticationFailed, status: response.statusCode, reason: "\(error)"),
                    retry: false)
            }
        case 423:
            intervalRetries += 1
            guard intervalRetries <= 3, let minimum = try? response.minExpires, minimum > requestedExpires else {
                return fail(
                    RegistrationError(
                        .protocolError, status: 423, reason: "Interval Too Brief without a usable Min-Expires"),
                    retry: false)
            }
            requestedExpires = minimum
            return sendRegister(expires: minimum, announce: nil)
        case 555 where Self.hasPushParameters(contact):
            // Push Notification Service Not Supported (RFC 8599 §4.1.1): bind without the push parameters,
            // and say so.
            for name in Self.pushParameterNames { contact.parameters.remove(name) }
            replacedContact = nil
            let error = RegistrationError(
                .rejected, status: 555, reason: "push notifications not supported: registering without them")
            state = .failed(error, willRetry: true)
            return [.stateChanged(state)] + sendRegister(expires: requestedExpires, announce: .registering)
        case 403, 404:
            return fail(
                RegistrationError(.rejected, status: response.statusCode, reason: response.reasonPhrase), retry: false)
        case 400..<500:
            return fail(
                RegistrationError(.rejected, status: response.statusCode, reason: response.reasonPhrase), retry: false)
        default:
            var after: Duration?
            if response.statusCode == 503, let retryAfter = try? response.retryAfter {
                after = .seconds(Int(retryAfter.seconds))
            }
            return fail(
                RegistrationError(.serverError, status: response.statusCode, reason: response.reasonPhrase),
                retry: true,
                after: after)
        }
    }

    /// The last REGISTER's transaction timed out (Timer F).
    public mutating func timedOut() -> [Action] {
        guard lastRequest != nil else { return [] }
        return fail(RegistrationError(.registrarUnreachable, reason: "no response to REGISTER"), retry: true)
    }

    /// The transport could not deliver the last REGISTER, or its connection closed.
    public mutating func transportFailed(_ reason: String) -> [Action] {
        guard lastRequest != nil || isBound else { return [] }
        return fail(RegistrationError(.transportFailed, reason: reason), retry: true)
    }

    /// The registration's flow died (keep-alive pong missing, RFC 5626 §4.4.1): register again at once, over a
    /// new flow.
    public mutating func flowDied() -> [Action] {
        guard !stopping, state != .idle, state != .unregistered else { return [] }
        let error = RegistrationError(.keepAliveTimeout, reason: "the registration flow stopped answering keep-alives")
        state = .failed(error, willRetry: true)
        var actions: [Action] = [.stateChanged(state)]
        actions += sendRegister(expires: requestedExpires, announce: .registering)
        return actions
    }

    /// The registration's TCP, TLS or WebSocket connection closed or broke. With outbound confirmed (RFC 5626
    /// §4.5): register again at once over a new flow, and back off only when that fails. Otherwise as
    /// `transportFailed`.
    public mutating func flowFailed(_ reason: String) -> [Action] {
        guard isOutbound else { return transportFailed(reason) }
        guard !stopping, state != .idle, state != .unregistered else { return [] }
        isBound = false
        isRecoveringFlow = true
        state = .failed(RegistrationError(.transportFailed, reason: reason), willRetry: true)
        var actions: [Action] = timerPurpose == nil ? [] : [.cancelTimer]
        timerPurpose = nil
        actions.append(.stateChanged(state))
        actions += sendRegister(expires: requestedExpires, announce: .registering)
        return actions
    }

    /// RFC 5626 §4.5: a random 50-100% of min(max-time, base-time * 2^failures).
    mutating func flowRecoveryDelay(failures: Int) -> Duration {
        let base = configuration.outboundBaseTime * (1 << min(failures, 16))
        let wait = min(base, configuration.outboundMaximumTime)
        jitterState &+= 0x9E37_79B9_7F4A_7C15
        var z = jitterState
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let fraction = 0.5 + 0.5 * Double(z >> 11) / Double(1 << 53)
        return wait * fraction
    }

    /// The timer armed by `.startTimer` fired.
    public mutating func timerFired() -> [Action] {
        guard let purpose = timerPurpose else { return [] }
        timerPurpose = nil
        switch purpose {
        case .refresh: return sendRegister(expires: requestedExpires, announce: nil)
        case .retry: return sendRegister(expires: requestedExpires, announce: .registering)
        }
    }

    // MARK: Internals

    private mutating func accepted(_ response: SIPResponse, for request: SIPRequest) -> [Action] {
        intervalRetries = 0
        retryDelay = configuration.initialRetryDelay
        _ = try? authenticator.verify(response, for: request)
        if stopping {
            isBound = false
            lastRequest = nil
            state = .unregistered
            return [.stateChanged(.unregistered)]
        }
        let contacts = (try? response.contacts) ?? []
        // Our binding: a contact equivalent to ours, or with our instance ID.
        let ours = contacts.first { candidate in
            if let instance = configuration.instanceID, candidate.instanceID == instance { return true }
            guard case .sip(let uri)? = candidate.uri else { return false }
            return uri.isEquivalent(to: contact)
        }
        let headerExpires = try? response.expires
        let granted = ours?.expires ?? headerExpires ?? requestedExpires
        lastRequest = nil
        replacedContact = nil
        readFeatureCaps(response)
        if configuration.regID != nil, configuration.instanceID != nil {
            let required = ((try? response.require) ?? []).contains { $0.lowercased() == "outbound" }
            let supported = ((try? response.supported) ?? []).contains { $0.lowercased() == "outbound" }
            isOutbound = required || (supported && ours?.regID == configuration.regID)
            flowTimer = SIPField.Name("Flow-Timer").flatMap { response.headerFields[$0] }.flatMap {
                UInt32(String($0.filter { !$0.isWhitespace }))
            }
        }
        flowFailures = 0
        isRecoveringFlow = false

        // NAT: the registrar saw another address than the one in our contact (RFC 3581 received/rport).
        if configuration.followsNAT, let via = try? response.topVia, let publicContact = natContact(from: via),
            !publicContact.isEquivalent(to: contact)
        {
            contact = publicContact
            return sendRegister(expires: requestedExpires, announce: nil)
        }

        guard granted > 0 else {
            return fail(
                RegistrationError(.protocolError, status: response.statusCode, reason: "binding not kept"), retry: true)
        }
        isBound = true
        state = .registered(expires: granted, contact: contact, contacts: contacts)
        timerPurpose = .refresh
        var refresh = refreshDelay(for: granted)
        if let interval = pushRefreshInterval, interval > 0 { refresh = min(refresh, .seconds(Int(interval))) }
        return [.stateChanged(state), .startTimer(after: refresh)]
    }

    /// The URI parameters RFC 8599 §4 puts in a Contact.
    static let pushParameterNames = ["pn-provider", "pn-param", "pn-prid"]

    static func hasPushParameters(_ uri: SIPURI) -> Bool { uri.parameters.contains("pn-provider") }

    /// Reads `+sip.pns` and `+sip.pnsreg` from the 2xx's Feature-Caps (RFC 6809 syntax:
    /// `Feature-Caps: *;+sip.pns="apns";+sip.pnsreg="120"`).
    private mutating func readFeatureCaps(_ response: SIPResponse) {
        guard let name = SIPField.Name("Feature-Caps") else { return }
        let values = response.headerFields[values: name]
        var supports = false
        var interval: UInt32?
        for value in values {
            for part in value.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                let key = pair.first.map { $0.trimmingCharacters(in: " \t").lowercased() } ?? ""
                if key == "+sip.pns" { supports = true }
                if key == "+sip.pnsreg", pair.count == 2 {
                    interval = UInt32(pair[1].trimmingCharacters(in: " \t\"")) ?? interval
                }
            }
        }
        registrarSupportsPush = supports
        pushRefreshInterval = interval
    }

    /// The contact as the registrar sees us, when `received`/`rport` differ from our contact's host/port.
    /// Over TCP and TLS with a listener only a different host counts: `rport` is then the connection's
    /// ephemeral port, and
    /// the registrar reaches us over that connection whatever the contact says (re-registering with it
    /// would only leave a second binding behind).
    private func natContact(from via: Via) -> SIPURI? {
        guard let received = via.received, let host = SIPHost(received) else { return nil }
        let isStream = contact.isSecure || (contact.transport.map { $0.lowercased() != "udp" } ?? false)
        if isStream, !configuration.contactNamesFlow {
            guard host != contact.host else { return nil }
            var moved = contact
            moved.host = host
            return moved
        }
        var port = contact.port
        if case .value(let p)? = via.rport { port = p }
        var updated = contact
        updated.host = host
        updated.port = port
        return updated
    }

    /// Refresh before expiry by a margin: 10% of the lifetime, at least 5 s, at most half of it (§10.2.4).
    func refreshDelay(for expires: UInt32) -> Duration {
        let lifetime = Double(expires)
        let margin = min(max(lifetime * 0.1, 5), lifetime / 2)
        return .milliseconds(Int((lifetime - margin) * 1000))
    }

    private mutating func fail(_ error: RegistrationError, retry: Bool, after: Duration? = nil) -> [Action] {
        lastRequest = nil
        if stopping {
            // Unregistering failed: the binding will expire by itself; we are done either way.
            isBound = false
            state = .unregistered
            return [.stateChanged(.failed(error, willRetry: false)), .stateChanged(.unregistered)]
        }
        isBound = false
        state = .failed(error, willRetry: retry)
        var actions: [Action] = [.stateChanged(state)]
        if retry, isOutbound, isRecoveringFlow {
            // A replacement flow failed (RFC 5626 §4.5): back off, then try another.
            let delay = after ?? flowRecoveryDelay(failures: flowFailures)
            flowFailures += 1
            timerPurpose = .retry
            actions.append(.startTimer(after: delay))
        } else if retry {
            let delay = after ?? retryDelay
            retryDelay = min(retryDelay * 2, configuration.maximumRetryDelay)
            timerPurpose = .retry
            actions.append(.startTimer(after: delay))
        }
        return actions
    }

    private mutating func resend(_ request: SIPRequest) -> [Action] {
        var request = request
        cseq += 1
        request.headerFields.set(.cseq, CSeq(cseq, .register))
        request.headerFields.removeAll(.via)
        lastRequest = request
        return [.send(request)]
    }

    private mutating func sendRegister(expires: UInt32, announce: RegistrationState?) -> [Action] {
        cseq += 1
        let aor = configuration.addressOfRecord
        var request = SIPRequest(method: .register, uri: .sip(configuration.registrar))
        request.headerFields.append(.maxForwards, 70)
        var from = NameAddress(uri: aor)
        from.tag = fromTag
        request.headerFields.append(.from, from)
        request.headerFields.append(.to, NameAddress(uri: aor))
        request.headerFields.append(.callID, callID)
        request.headerFields.append(.cseq, CSeq(cseq, .register))
        var bound = contact
        if configuration.instanceID != nil, configuration.regID != nil { bound.parameters.set("ob", to: nil) }
        var binding = NameAddress(uri: bound)
        if let instance = configuration.instanceID {
            binding.parameters.setQuoted("+sip.instance", "<\(instance)>")
            if let regID = configuration.regID { binding.parameters["reg-id"] = String(regID) }
            request.headerFields.append(.supported, "path, outbound")
        }
        if let old = replacedContact, expires > 0 {
            var removed = NameAddress(uri: old)
            removed.parameters["expires"] = "0"
            request.headerFields.append(.contact, Contact.address(removed))
        }
        request.headerFields.append(.contact, Contact.address(binding))
        request.headerFields.append(.expires, expires)
        request.headerFields.append(
            .allow, "INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, PRACK, INFO, MESSAGE, REFER, NOTIFY")
        if let agent = configuration.userAgent { request.headerFields.append(.userAgent, agent) }
        _ = try? authenticator.authorize(&request)
        lastRequest = request
        var actions: [Action] = []
        if let announce, announce != state {
            state = announce
            actions.append(.stateChanged(announce))
        }
        actions.append(.send(request))
        return actions
    }
}
