import Foundation
import ICE
import SDP
import SIPMessage
import SIPTransport
import SIPUserAgent
import STUN

/// ICE in calls (RFC 8445, SDP per RFC 8839): whether a new session uses it, its gathering before the offer or
/// answer, the peer's ICE from each negotiation, restarts in re-offers, and the selected pair's fate (the
/// `connected` event waits for the first; consent lost ends the call).
extension CallCoordinator {
    /// How a new session's ICE starts, or why it has none.
    enum ICEOpening {
        /// No ICE: a plain call.
        case none
        /// The offer's ICE does not match its c=/m= line: answered with `a=ice-mismatch`, no ICE (RFC 8839 §4.4.1.3).
        case mismatch
        /// ICE with these settings, as the offerer or the answerer, gathering these components.
        case ice(ICESettings, isOfferer: Bool, components: [Int])
    }

    /// Whether a new session uses ICE.
    func iceOpening(_ setup: MediaSetup) -> ICEOpening {
        switch setup {
        case .outgoing(let settings):
            // The offer has rtcp-mux without rtcp-mux-only: RTCP candidates too (RFC 8858 §5.1.1).
            return settings.map { .ice($0, isOfferer: true, components: [1, 2]) } ?? .none
        case .incoming(let request):
            // The account matters only when one has ICE settings: otherwise the To header is not read.
            let account =
                accounts.someAccountSetsICE ? accounts.matching((try? request.to)?.uri.sipURI)?.account : nil
            guard let settings = ICESettings.resolve(configuration, account: account) else { return .none }
            guard !request.body.isEmpty else { return .ice(settings, isOfferer: true, components: [1, 2]) }
            guard let offer = try? SessionDescription(parsing: Array(request.body)),
                let index = RemoteICEDescription.audioIndex(of: offer)
            else { return .none }
            switch RemoteICEDescription.read(offer, mediaIndex: index) {
            case .none: return .none
            case .mismatch: return .mismatch
            case .ice:
                let muxes = offer.media[index].isRTCPMuxed && configuration.offersRTCPMux
                let components = muxes ? [1] : [1, 2]
                return .ice(settings, isOfferer: false, components: components)
            }
        }
    }

    /// Starts gathering for session `key` (its stream is open); `iceGathered` follows on the loop.
    func startICE(_ key: SessionKey, _ settings: ICESettings, isOfferer: Bool, components: [Int]) {
        var generator = engine.environment.random.generator
        let credentials = ICECredentials.random(using: &generator)
        let state = ICECallState(settings: settings, isOfferer: isOfferer, credentials: credentials)
        let tls = configuration.tls
        ICEServerResolution.resolve(settings, engine: engine) { [weak self] stun, relays in
            guard let self, self.media.hasStream(key) else { return }
            let plan = ICEPlan(
                role: isOfferer ? .controlling : .controlled, credentials: credentials, components: components,
                isOfferer: isOfferer, isRelayOnly: settings.isRelayOnly, stunServers: stun, relays: relays,
                gatheringTimeout: settings.gatheringTimeout,
                tls: TLSConfiguration(trustedCAFile: tls.trustedCAFile, verifiesPeer: tls.verifiesPeer))
            self.media.startICE(key, state, plan: plan, events: self.iceEvents(key))
        }
    }

    private func iceEvents(_ key: SessionKey) -> ICEDriverEvents {
        let engine = self.engine
        var events = ICEDriverEvents()
        events.gathered = { [weak self] candidates in
            engine.execute { [weak self] in self?.iceGathered(key, candidates) }
        }
        events.selected = { [weak self] pair in engine.execute { [weak self] in self?.iceSelected(key, pair) } }
        events.valid = { [weak self] pair in
            guard pair.component == 1 else { return }
            engine.execute { [weak self] in self?.iceValid(key, pair) }
        }
        events.consentLost = { [weak self] pair in
            engine.execute { [weak self] in self?.iceConsentLost(key, pair) }
        }
        events.failed = { [weak self] in engine.execute { [weak self] in self?.iceFailed(key) } }
        return events
    }

    /// Gathering is over: the offer or answer can go (a call without a single candidate fails).
    private func iceGathered(_ key: SessionKey, _ candidates: [ICECandidate]) {
        media.updateICEState(key) { state in
            state.local.candidates = candidates
            state.isGathered = true
        }
        guard let state = media.ice[key] else { return }
        logger.debug("ICE gathered", metadata: ["session": "\(key)", "candidates": "\(candidates.count)"])
        sessions.mediaReady(key, state.local.media(isOffer: state.isOfferer))
    }

    // MARK: The peer's ICE

    /// A negotiation completed (an answer taken or made): the peer's ICE goes to the stream, or the stream
    /// falls back to plain media when the peer does without; a first ICE negotiation arms the connectivity
    /// timer.
    func iceNegotiated(_ key: SessionKey, _ session: NegotiatedSession) {
        guard let state = media.ice[key], state.isGathered, let description = sessions.remoteDescription(key)
        else { return }
        switch RemoteICEDescription.read(description, mediaIndex: session.mediaIndex) {
        case .ice(let remote):
            guard remote != state.remote || state.isActive != true else { return }
            let restart = state.pendingRestart
            media.updateICEState(key) {
                $0.remote = remote
                $0.isActive = true
                $0.pendingRestart = nil
            }
            media.updateICE(key, .ice(remote, isRTCPMuxed: session.isRTCPMuxed, restart: restart))
            if state.path == nil || restart != nil { armConnectivityTimer(key, state.settings.connectivityTimeout) }
        case .none, .mismatch:
            guard state.isActive != false else { return }
            media.updateICEState(key) { $0.isActive = false }
            let defaults = [1, 2].reduce(into: [Int: ICECandidate]()) { found, component in
                found[component] = state.local.defaultCandidate(component: component)
            }
            media.updateICE(key, .none(defaults: defaults))
        }
    }

    /// A re-offer (the provider answers them for ICE calls): new credentials in it restart ICE (RFC 8445 §9),
    /// and this side's answer then carries new ones too; the same credentials (an RFC 5245 agent's update of
    /// its default candidates after ICE) are answered as they are.
    func iceReoffer(_ key: SessionKey, _ offer: SessionDescription) {
        guard let state = media.ice[key], state.isActive == true,
            let index = RemoteICEDescription.audioIndex(of: offer)
        else { return sessions.answerOffer(key) }
        switch RemoteICEDescription.read(offer, mediaIndex: index) {
        case .ice(let remote):
            if let known = state.remote, known.credentials != remote.credentials {
                var generator = engine.environment.random.generator
                let fresh = ICECredentials.random(using: &generator)
                media.updateICEState(key) {
                    $0.local.credentials = fresh
                    $0.local.selected = [:]
                    $0.pendingRestart = fresh
                }
            }
        case .none, .mismatch:
            // The peer stops ICE: the answer carries none; the stream falls back once it is made.
            media.updateICEState(key) { $0.local.selected = [:] }
        }
        guard let current = media.ice[key] else { return sessions.answerOffer(key) }
        let isICE = if case .ice = RemoteICEDescription.read(offer, mediaIndex: index) { true } else { false }
        let answer = current.local.media(isOffer: false)
        sessions.setLocalMedia(key, isICE ? answer ?? plainMedia(current) : plainMedia(current))
        sessions.answerOffer(key)
        if let offerMedia = current.local.media(isOffer: true) { sessions.setLocalMedia(key, offerMedia) }
        if let negotiated = sessions.negotiatedSession(key) { iceNegotiated(key, negotiated) }
    }

    /// Restarts ICE from this side (RFC 8445 §9, a network change, say): a re-INVITE with new credentials and
    /// every candidate; the pair in use carries the media until the new checks select one.
    func restartICE(_ uuid: UUID) {
        guard let record = table[uuid], record.state == .connected, let key = record.session,
            media.ice[key]?.isActive == true
        else { return }
        var generator = engine.environment.random.generator
        let fresh = ICECredentials.random(using: &generator)
        media.updateICEState(key) {
            $0.local.credentials = fresh
            $0.local.selected = [:]
            $0.pendingRestart = fresh
        }
        if let offer = media.ice[key]?.local.media(isOffer: true) { sessions.setLocalMedia(key, offer) }
        sessions.renegotiate(key)
    }

    /// The default candidate without ICE attributes.
    private func plainMedia(_ state: ICECallState) -> LocalMedia {
        var media = state.local.media(isOffer: false) ?? LocalMedia(host: "0.0.0.0", port: 0)
        media.attributes = []
        return media
    }

    // MARK: The selected pair

    private func iceSelected(_ key: SessionKey, _ pair: ICEPairInfo) {
        guard media.ice[key] != nil else { return }
        var changed: CallMediaPath?
        var held = false
        media.updateICEState(key) { state in
            changed = state.selected(pair)
            if pair.component == 1 {
                state.cancelTimers()
                held = state.holdsConnect
                state.holdsConnect = false
            }
        }
        if let offer = media.ice[key]?.local.media(isOffer: true) { sessions.setLocalMedia(key, offer) }
        guard let record = table[session: key], record.state != .ended else { return }
        if let changed {
            logger.info("ICE selected \(changed)", metadata: ["call": "\(record.uuid)"])
            record.call.mediaPath = changed
        }
        if held {
            if !holdsConnectForDTLS(record) { finishConnecting(record) }
        } else if let changed, record.call.connectedAt != nil {
            var update = CallUpdate()
            update.mediaPath = changed
            emit(.updated(record.call, update))
        }
    }

    /// Whether the call's `connected` event waits for ICE: it is active and has no pair yet (and then it does).
    func holdsConnectForICE(_ record: CallRecord) -> Bool {
        guard let key = record.session, let state = media.ice[key], state.isActive == true, state.path == nil
        else { return false }
        media.updateICEState(key) { $0.holdsConnect = true }
        armValidPairTimer(key)
        return true
    }

    /// The first valid pair of component 1, or a better one, while nothing is selected: media goes on it
    /// (RFC 8445 §12.1).
    private func iceValid(_ key: SessionKey, _ pair: ICEPairInfo) {
        guard media.ice[key]?.path == nil else { return }
        media.updateICEState(key) { $0.validPair = pair }
        armValidPairTimer(key)
    }

    /// A held `connected` waits for the selection at most `validPairGrace` after a valid pair exists: the
    /// nomination normally follows within the agent's nomination delay and a round trip, and when its
    /// packets are lost the call connects on the valid pair (a later selection updates the path).
    private func armValidPairTimer(_ key: SessionKey) {
        guard let state = media.ice[key], state.holdsConnect, state.validPair != nil, state.path == nil,
            state.validPairTimer == nil
        else { return }
        let handle = engine.loop.scheduleTimer(after: state.settings.validPairGrace) { [weak self] in
            guard let self else { return }
            media.updateICEState(key) { $0.validPairTimer = nil }
            guard let state = media.ice[key], state.path == nil, let valid = state.validPair else { return }
            if let record = table[session: key] {
                logger.info("ICE: no selection yet; connecting on a valid pair", metadata: ["call": "\(record.uuid)"])
            }
            iceSelected(key, valid)
        }
        let loop = engine.loop
        media.updateICEState(key) { $0.validPairTimer = { loop.cancelTimer(handle) } }
    }

    private func iceConsentLost(_ key: SessionKey, _ pair: ICEPairInfo) {
        guard pair.component == 1, let record = table[session: key], record.state != .ended else { return }
        logger.warning("ICE consent lost: ending the call", metadata: ["call": "\(record.uuid)"])
        // RFC 7675 §5.1: media stops at once; the BYE says why (Q.850 102, recovery on timer expiry).
        end(
            record.uuid, rejectStatus: 480, reason: .connectivityLost,
            byeReason: Reason(protocol: "Q.850", cause: 102, text: "ICE consent lost"))
    }

    /// The check list failed, or no pair came in time: a call without a path ends (one that has a pair, from
    /// before a restart, goes on while its consent lasts).
    private func iceFailed(_ key: SessionKey) {
        guard let state = media.ice[key], state.path == nil, let record = table[session: key],
            record.state != .ended
        else { return }
        logger.warning("ICE failed: ending the call", metadata: ["call": "\(record.uuid)"])
        end(
            record.uuid, rejectStatus: 480, reason: .failed,
            byeReason: Reason(protocol: "Q.850", cause: 102, text: "ICE failed"))
    }

    /// No pair selected in time. With a valid pair the media already flows (RFC 8445 §12.1) and only the
    /// nomination is late (its transaction lost packets): the call connects on that pair, and a selection
    /// that comes later updates it. Without one, the call fails.
    private func connectivityTimedOut(_ key: SessionKey) {
        guard let state = media.ice[key], state.path == nil else { return }
        guard let valid = state.validPair else { return iceFailed(key) }
        if let record = table[session: key] {
            logger.warning("ICE: no nomination in time; media on a valid pair", metadata: ["call": "\(record.uuid)"])
        }
        iceSelected(key, valid)
    }

    private func armConnectivityTimer(_ key: SessionKey, _ timeout: Duration) {
        let handle = engine.loop.scheduleTimer(after: timeout) { [weak self] in
            self?.media.updateICEState(key) { $0.connectivityTimer = nil }
            self?.connectivityTimedOut(key)
        }
        let loop = engine.loop
        media.updateICEState(key) { state in
            state.connectivityTimer?()
            state.connectivityTimer = { loop.cancelTimer(handle) }
        }
    }
}
