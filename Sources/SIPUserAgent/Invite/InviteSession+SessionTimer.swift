import SIPMessage

// Session timers (RFC 4028): negotiation of the interval and the refresher, refreshes at half the interval,
// BYE when no refresh came in time.

/// What a UAS does with the Session-Expires of a request it answers (RFC 4028 §9).
enum SessionTimerDecision: Sendable, Hashable {
    /// No session timer (this side does not support it, or nobody asked for one).
    case none
    /// Put `expires` in the 2xx (with `Require: timer` when the UAC supports timers); `refresher` is its
    /// refresher, known without reading the value back.
    case use(SessionExpires, refresher: SessionExpires.Refresher, requiresTimer: Bool)
    /// The interval is below this side's Min-SE: 422 with Min-SE `minimum` (§6).
    case tooSmall(minimum: UInt32)
}

extension InviteSession {
    /// RFC 4028 §9: the UAS keeps the interval asked for (at least its Min-SE, or 422) and the refresher
    /// asked for; without one it chooses (the UAC when it supports timers, else itself). A UAC that supports
    /// timers but asked for none gets this side's interval.
    /// - Parameter peerSupportsTimer: whether the request supports `timer`, when the caller knows already.
    func sessionTimerDecision(for request: SIPRequest, peerSupportsTimer: Bool? = nil) -> SessionTimerDecision {
        guard let preferences = configuration.sessionTimer else { return .none }
        let peerSupports = peerSupportsTimer ?? request.supportsOption("timer")
        let chosen: SessionExpires.Refresher
        switch preferences.preferredRefresher {
        case .local: chosen = .uas
        case .remote, .unspecified: chosen = .uac
        }
        if let requested = (try? request.sessionExpires) ?? nil {
            guard requested.deltaSeconds >= preferences.minimumInterval else {
                return .tooSmall(minimum: preferences.minimumInterval)
            }
            let refresher = peerSupports ? (requested.refresher ?? chosen) : .uas
            return .use(
                SessionExpires(deltaSeconds: requested.deltaSeconds, refresher: refresher), refresher: refresher,
                requiresTimer: peerSupports)
        }
        guard peerSupports else { return .none }
        // The value at the configured interval as the configuration made it once (for its response fields).
        let expires =
            configuration.responseFields.sessionExpires(refresher: chosen)
            ?? SessionExpires(deltaSeconds: preferences.interval, refresher: chosen)
        return .use(expires, refresher: chosen, requiresTimer: true)
    }

    /// Puts a session timer in force: `localRefresher` is the `refresher` value that names this side in the
    /// transaction that set it (`uac` in a response this side received, `uas` in a request it answered).
    /// The refresher refreshes at half the interval; both sides end the session at the interval minus
    /// min(32 s, interval/3) without a refresh (§10). `refresher`, when given, is the one `expires` names.
    mutating func activateSessionTimer(
        _ expires: SessionExpires, refresher: SessionExpires.Refresher? = nil,
        localRefresher: SessionExpires.Refresher, isRefresh: Bool = false, into actions: inout [SessionAction]
    ) {
        let interval = max(expires.deltaSeconds, 1)
        let isLocal = (refresher ?? expires.refresher ?? localRefresher) == localRefresher
        sessionTimer = ActiveSessionTimer(interval: interval, isLocalRefresher: isLocal)
        if isLocal {
            timers.start(.sessionRefresh, after: .milliseconds(Int64(interval) * 500), into: &actions)
        } else {
            timers.cancel(.sessionRefresh, into: &actions)
        }
        let margin = min(32, interval / 3)
        timers.start(.sessionExpiry, after: .seconds(Int64(interval - margin)), into: &actions)
        if isRefresh { actions.append(.event(.sessionRefreshed(interval: interval))) }
    }

    /// The UAC side of §7.2: a 2xx with Session-Expires sets the timer; one without it means no session
    /// expiration.
    mutating func startSessionTimer(
        fromUACResponse response: SIPResponse, isRefresh: Bool = false, into actions: inout [SessionAction]
    ) {
        guard configuration.sessionTimer != nil, let expires = (try? response.sessionExpires) ?? nil else {
            if sessionTimer != nil {
                sessionTimer = nil
                timers.cancel(.sessionRefresh, into: &actions)
                timers.cancel(.sessionExpiry, into: &actions)
            }
            // Still one event per re-offer: the session was refreshed, with no timer in force.
            if isRefresh { actions.append(.event(.sessionRefreshed(interval: 0))) }
            return
        }
        activateSessionTimer(expires, localRefresher: .uac, isRefresh: isRefresh, into: &actions)
    }

    /// Session-Expires and Min-SE for a re-INVITE or UPDATE while a timer is in force (§7.4): this side is
    /// the UAC of the transaction, so `refresher=uac` when it refreshes.
    func addSessionTimerHeaders(to request: inout SIPRequest) {
        guard let preferences = configuration.sessionTimer, let active = sessionTimer else { return }
        request.headerFields.set(
            .sessionExpires,
            SessionExpires(deltaSeconds: active.interval, refresher: active.isLocalRefresher ? .uac : .uas))
        request.headerFields.set(.minSE, preferences.minimumInterval)
    }

    /// Refresh timer: a session refresh, by UPDATE without SDP when the other side allows UPDATE and the
    /// configuration lets it, else by re-INVITE with the unchanged SDP.
    mutating func sessionRefreshDue(into actions: inout [SessionAction]) {
        guard state == .confirmed else { return }
        let method: OfferMethod =
            configuration.sessionTimer?.refreshMethod == .automatic && peer.allowsUpdate ? .update : .invite
        requestOffer(LocalOffer(intent: .refresh, method: method), into: &actions)
    }

    /// Expiry timer: no refresh in time; BYE (§10).
    mutating func sessionExpired(into actions: inout [SessionAction]) {
        guard state == .confirmed || state == .connecting else { return }
        let reason = Reason(protocol: "SIP", cause: 408, text: "Session expired")
        let ending = EndReason(.timeout, reasonPhrase: "Session expired", reasons: [reason])
        if state == .confirmed {
            sendBye(reasons: [reason], into: &actions)
            end(ending, into: &actions)
        } else {
            end(ending, byeAfterACK: [reason], into: &actions)
        }
    }
}
