package import SIPAuthentication
import SIPCore
package import SIPMessage
package import SIPTransport
package import SIPUserAgent

/// Runs a `RegistrationClient` over the engine: resolves the registrar (RFC 3263), sends each REGISTER in
/// a client transaction, fills the contact from the transport, keeps the registration's TCP, TLS, WS or WSS
/// flow open and pinged (RFC 5626 §4.4.1 CRLFCRLF; WebSocket pings over WS and WSS, RFC 6455 §5.5.2; whether
/// or not the registrar advertises outbound) and, with outbound confirmed, a UDP flow checked by STUN
/// (§4.4.2), and re-registers when that flow dies. Loop-confined.
package final class RegistrationDriver: @unchecked Sendable {
    // @unchecked Sendable: loop-confined; the reference crosses threads only to post work back to the loop.

    package struct Settings: Sendable {
        package var addressOfRecord: SIPURI
        package var registrar: SIPURI
        package var transport: TransportProtocol?
        /// Where REGISTERs go instead of the registrar's address (an account's WebSocket server).
        package var firstHop: SIPURI?
        package var contactUser: String
        package var expires: UInt32
        package var keepAliveInterval: Duration
        package var instanceID: String?
        /// URI parameters the Contact carries: RFC 8599's push parameters.
        package var contactParameters: [(name: String, value: String)]
        package var userAgent: String?
        package var resolver: ResolverConfiguration

        package init(
            addressOfRecord: SIPURI, registrar: SIPURI, transport: TransportProtocol? = nil, firstHop: SIPURI? = nil,
            contactUser: String,
            expires: UInt32 = 3600, keepAliveInterval: Duration = .seconds(30), instanceID: String? = nil,
            contactParameters: [(name: String, value: String)] = [], userAgent: String? = nil,
            resolver: ResolverConfiguration = ResolverConfiguration()
        ) {
            self.addressOfRecord = addressOfRecord
            self.registrar = registrar
            self.transport = transport
            self.firstHop = firstHop
            self.contactUser = contactUser
            self.expires = expires
            self.keepAliveInterval = keepAliveInterval
            self.instanceID = instanceID
            self.contactParameters = contactParameters
            self.userAgent = userAgent
            self.resolver = resolver
        }
    }

    let engine: Engine
    let settings: Settings
    let credentials: @Sendable (String) -> DigestCredentials?
    /// The Contact's URI parameters now (the settings', until a push token changes them).
    private var contactParameters: [(name: String, value: String)]
    var client: RegistrationClient?
    var destination: Destination?
    var flow: FlowID?
    var timer: TimerHandle?
    var observer: Int?
    /// The local address the last REGISTER named (`contact(for:)`): over TCP/TLS without a listener, the
    /// connection's. A REGISTER leaving on another connection names that one.
    var flowContact: SIPURI?
    /// The `Flow-Timer` the keep-alives on `flow` follow (nil: `keepAliveInterval`).
    var flowTimer: UInt32?
    /// The STUN keep-alives of a UDP registration the registrar confirmed outbound for (RFC 5626 §4.4.2).
    private(set) var udpKeepAlive: UDPFlowKeepAlive?
    /// Every state change, on the loop.
    package var onState: ((SIPUserAgent.RegistrationState) -> Void)?
    /// The transport failure behind the last `transportFailed` state (typed for the app); `nil` when that
    /// failure had no transport error (a connection closed cleanly, a request that found no route).
    private(set) var lastTransportFailure: TransportFailure?

    package init(engine: Engine, settings: Settings, credentials: @escaping @Sendable (String) -> DigestCredentials?) {
        self.engine = engine
        self.settings = settings
        self.credentials = credentials
        contactParameters = settings.contactParameters
    }

    /// Resolves the registrar and registers. Call on the loop.
    package func start() {
        observer = engine.core.addFlowObserver { [weak self] event in self?.flowEvent(event) }
        let resolver = SIPResolver(configuration: settings.resolver)
        let target = settings.firstHop ?? requestURI
        // An address needs no lookup: resolved at once, on the loop (in order, in virtual time too).
        if target.host.kind != .hostname {
            let result = Result { () throws(TransportError) in try resolver.resolveNow(target) }
            resolved(result)
            return
        }
        // Names are resolved off the loop; the result comes back to it.
        Task.detached { [weak self, engine] in
            let result: Result<[Destination], TransportError>
            do throws(TransportError) {
                result = .success(try await resolver.resolve(target))
            } catch {
                result = .failure(error)
            }
            engine.execute { [weak self] in self?.resolved(result) }
        }
    }

    private func resolved(_ result: Result<[Destination], TransportError>) {
        switch result {
        case .failure(let error):
            onState?(.failed(RegistrationError(.registrarUnreachable, reason: "\(error)"), willRetry: false))
        case .success(let destinations):
            guard var destination = destinations.first else {
                onState?(.failed(RegistrationError(.registrarUnreachable, reason: "no address"), willRetry: false))
                return
            }
            if let transport = settings.transport, destination.transport != transport, !requestURI.isSecure,
                requestURI.transport == nil
            {
                destination.transport = transport
            }
            self.destination = destination
            HopResolver(engine: engine).ensureListening(for: destination)
            let contact = contact(for: destination)
            flowContact = contact
            // Over a WebSocket the registrar reaches us over the connection whatever the Contact says (its
            // `.invalid` host, RFC 7118 §8): re-registering with the address it saw would only add a binding.
            // RFC 5626 outbound (reg-id 1, the one flow) over every transport: the registrar that supports it
            // routes to the flow, and a broken flow is replaced at once (over WS, by a new WebSocket
            // connection). A UDP flow is kept and checked with STUN keep-alives (`UDPFlowKeepAlive`).
            let isFlow = destination.transport != .udp
            let instanceID = settings.instanceID
            let base = RegistrationConfiguration(
                addressOfRecord: settings.addressOfRecord, registrar: requestURI,
                contact: contact, expires: settings.expires, instanceID: instanceID,
                regID: instanceID == nil ? nil : 1, followsNAT: !destination.transport.isWebSocket,
                userAgent: settings.userAgent)
            var configuration = base
            configuration.contactNamesFlow =
                isFlow && !destination.transport.isWebSocket
                && engine.transport.listeningAddress(destination.transport, family: destination.address.family) == nil
            let authenticator = DigestAuthenticator(credentials: credentials)
            client = RegistrationClient(
                configuration: configuration, callID: engine.core.makeCallID(), fromTag: engine.core.makeTag(),
                authenticator: authenticator, seed: engine.environment.random.word())
            run { $0.start() }
        }
    }

    /// Unregisters. Call on the loop.
    package func stop() {
        guard client != nil else {
            onState?(.unregistered)
            return
        }
        run { $0.stop() }
    }

    /// The REGISTER's Request-URI: the registrar in the account transport's form (`TransportForm`: a TLS
    /// account registers at `sips:`).
    var requestURI: SIPURI { TransportForm.uri(settings.registrar, for: settings.transport) }

    /// Our contact toward `destination`: the route's address and the listener's port, in the flow's form.
    private func contact(for destination: Destination) -> SIPURI {
        let local = engine.transport.localAddress(for: destination) ?? .loopback()
        let host = SIPHost(local.host) ?? SIPHost("127.0.0.1")
        var contact = TransportForm.contact(
            user: settings.contactUser, host: host ?? settings.registrar.host, port: local.port,
            flow: destination.transport, webSocketClientHost: engine.transport.webSocketClientHost)
        for (name, value) in contactParameters { contact.parameters.set(name, to: value) }
        return contact
    }

    /// The push token changed: the next REGISTER binds the new Contact and removes the old one (RFC 8599
    /// §4.1), so one binding remains. Call on the loop.
    package func replaceContactParameters(_ parameters: [(name: String, value: String)]) {
        contactParameters = parameters
        guard let destination, client != nil else { return }
        let contact = contact(for: destination)
        // The same flow, another Contact: not a flow change.
        flowContact = contact
        run { $0.replaceContact(contact) }
    }

    private func run(_ step: (inout RegistrationClient) -> [RegistrationClient.Action]) {
        guard var client else { return }
        let actions = step(&client)
        self.client = client
        for action in actions { perform(action) }
    }

    private func perform(_ action: RegistrationClient.Action) {
        switch action {
        case .send(var request):
            guard let destination else { return }
            // After a broken TCP/TLS connection the REGISTER opens a new one: its Contact names it.
            let current = contact(for: destination)
            if current != flowContact, var client {
                flowContact = current
                request = client.flowChanged(contact: current, in: request)
                self.client = client
            }
            do {
                try engine.core.sendRequest(request, to: destination) { [weak self] event in
                    self?.transactionEvent(event)
                }
            } catch {
                failed(nil, otherwise: "\(error)", flow: false)
            }
        case .startTimer(let after):
            if let timer { engine.loop.cancelTimer(timer) }
            timer = engine.loop.scheduleTimer(after: after) { [weak self] in
                self?.timer = nil
                self?.run { $0.timerFired() }
            }
        case .cancelTimer:
            if let timer { engine.loop.cancelTimer(timer) }
            timer = nil
        case .stateChanged(let state):
            if case .registered = state { holdFlow() }
            if state == .unregistered { releaseFlow() }
            onState?(state)
        }
    }

    private func transactionEvent(_ event: ClientTransactionEvent) {
        switch event {
        case .response(let response):
            run { $0.receive(response) }
        case .timeout:
            run { $0.timedOut() }
        case .transportError(let error):
            failed(error, otherwise: "transport error", flow: false)
        case .terminated:
            break
        }
    }

    /// Keep the registration's connection open and pinged (TCP, TLS, WS, WSS), every `keepAliveInterval` or,
    /// when the registrar's 200 gave a `Flow-Timer`, at a random 80-100% of it (RFC 5626 §4.4.1), whichever
    /// is sooner. The ping is CRLFCRLF over TCP and TLS, and over WS and WSS a WebSocket Ping (RFC 6455 §5.5.2, the
    /// keep-alive RFC 7118 §6 names); a missing pong marks the flow dead either way.
    private func holdFlow() {
        guard let destination else { return }
        if destination.transport == .udp {
            keepUDPFlow(to: destination.address)
            return
        }
        guard let current = engine.transport.flow(to: destination) else { return }
        let timer = client?.flowTimer
        if current != flow {
            releaseFlow()
            flow = current
            engine.transport.retain(flow: current)
        } else if timer == flowTimer {
            return
        }
        flowTimer = timer
        engine.transport.setKeepAlive(flow: current, interval: keepAliveInterval)
    }

    /// With outbound confirmed over UDP, STUN Binding requests to the registrar from the SIP socket every
    /// keep-alive interval (RFC 5626 §4.4.2); a request unanswered or a changed mapped address means the NAT
    /// lost the flow: register again at once (§4.5). Without outbound, nothing (as before).
    private func keepUDPFlow(to address: SocketAddress) {
        guard client?.isOutbound == true else {
            stopUDPKeepAlive()
            return
        }
        if let running = udpKeepAlive, running.destination == address { return }
        stopUDPKeepAlive()
        let keepAlive = UDPFlowKeepAlive(
            engine: engine, destination: address, interval: { [weak self] in self?.keepAliveInterval ?? .seconds(30) },
            onFailure: { [weak self] reason in
                guard let self else { return }
                self.udpKeepAlive = nil
                self.run { $0.flowFailed(reason) }
            })
        udpKeepAlive = keepAlive
        keepAlive.start()
    }

    private func stopUDPKeepAlive() {
        udpKeepAlive?.stop()
        udpKeepAlive = nil
    }

    /// The keep-alive interval of the registration's flow (see `holdFlow`).
    private var keepAliveInterval: Duration {
        guard let seconds = client?.flowTimer, seconds > 0 else { return settings.keepAliveInterval }
        let fraction = 0.8 + 0.2 * Double(engine.environment.random.word() >> 11) / Double(1 << 53)
        return min(settings.keepAliveInterval, .seconds(Double(seconds) * fraction))
    }

    private func releaseFlow() {
        stopUDPKeepAlive()
        flowTimer = nil
        guard let flow else { return }
        engine.transport.setKeepAlive(flow: flow, interval: nil)
        engine.transport.release(flow: flow)
        self.flow = nil
    }

    private func flowEvent(_ event: FlowEvent) {
        switch event {
        case .dead(let dead) where dead == flow:
            flow = nil
            flowTimer = nil
            run { $0.flowDied() }
        case .closed(let closed, let error) where closed == flow:
            flow = nil
            flowTimer = nil
            // Registrars such as Asterisk forget TCP/TLS bindings when the connection closes: register again
            // (at once over a new flow with outbound, RFC 5626 §4.5; after the retry delay otherwise).
            failed(error, otherwise: "connection closed", flow: true)
        default:
            break
        }
    }

    /// Reports a failed REGISTER (`flow`: the registration's connection broke) with the transport's reason,
    /// typed in `lastTransportFailure` and in words in the registration error.
    private func failed(_ error: TransportError?, otherwise reason: String, flow: Bool) {
        let failure = error.map(TransportFailure.init)
        lastTransportFailure = failure
        let text = failure?.description ?? reason
        run { flow ? $0.flowFailed(text) : $0.transportFailed(text) }
    }

    /// The app is being suspended: stop refreshing and close the registration's connection without
    /// unregistering, so the binding (and its push parameters) stays at the registrar until it expires.
    package func suspend() {
        let open = flow
        detach()
        if let open { engine.transport.close(flow: open) }
    }

    /// Stops watching flows.
    package func detach() {
        if let observer { engine.core.removeFlowObserver(observer) }
        releaseFlow()
        if let timer { engine.loop.cancelTimer(timer) }
    }
}
