import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// What to send outside a dialog.
struct OutOfDialogRequest {
    var method: SIPMethod
    var target: URI
    var from: SIPURI?
    var outboundProxy: SIPURI?
    var transport: SIPTransportKind?
    var credentials: (@Sendable (String) -> DigestCredentials?)?
    var contentType: String?
    var body: [UInt8] = []
}

/// Sends requests outside any dialog for the provider, MESSAGE (RFC 3428) and OPTIONS (RFC 3261 §11): each
/// to its target in the account transport's form, through the outbound proxy, answering one digest
/// challenge, and reports the final status. Loop-confined.
final class OutOfDialogSender {
    private let engine: Engine
    private let hops: HopResolver
    private let userAgent: String

    init(engine: Engine, userAgent: String) {
        self.engine = engine
        hops = HopResolver(engine: engine)
        self.userAgent = userAgent
    }

    /// Sends `standalone`; `completion` gets the final status (408 on timeout, 503 on a transport error).
    func send(_ standalone: OutOfDialogRequest, completion: @escaping (Int) -> Void) {
        let transport = standalone.transport?.transportProtocol
        let requestURI = TransportForm.uri(standalone.target, for: transport)
        // The account's transport reaches the outbound proxy too (a transport parameter in its URI wins).
        hops.resolve(standalone.outboundProxy.map { .sip($0) } ?? requestURI, transport: transport) {
            [weak self] (destination: Destination?) in
            guard let self, let destination else {
                completion(503)
                return
            }
            self.hops.ensureListening(for: destination)
            let request = Self.request(
                standalone, requestURI: requestURI, local: self.hops.localAddress(toward: destination),
                flow: destination.transport, callID: self.engine.core.makeCallID(),
                localTag: self.engine.core.makeTag(),
                userAgent: self.userAgent, webSocketClientHost: self.engine.transport.webSocketClientHost)
            let authenticator = standalone.credentials.map { DigestAuthenticator(credentials: $0) }
            self.send(request, to: destination, authenticator: authenticator, completion: completion)
        }
    }

    /// The request for `standalone` from `local` over `flow`: OPTIONS with a Contact in the flow's form
    /// (RFC 3261 §11.1) and `Accept: application/sdp`; MESSAGE makes no dialog and has no Contact. Pure.
    static func request(
        _ standalone: OutOfDialogRequest, requestURI: URI, local: SocketAddress, flow: TransportProtocol,
        callID: String, localTag: String, userAgent: String, webSocketClientHost: String = "switchboard.invalid"
    ) -> SIPRequest {
        let fromURI = standalone.from ?? SIPURI(user: "switchboard", host: HopResolver.host(local))
        let contact =
            standalone.method == .options
            ? NameAddress(
                uri: .sip(
                    TransportForm.contact(
                        user: fromURI.user ?? "switchboard", host: HopResolver.host(local), port: local.port,
                        flow: flow, webSocketClientHost: webSocketClientHost)))
            : nil
        var request = StandaloneRequest.make(
            standalone.method, requestURI: requestURI, from: NameAddress(uri: .sip(fromURI)),
            to: NameAddress(uri: standalone.target), callID: callID, localTag: localTag,
            routeSet: [NameAddress](outboundProxy: standalone.outboundProxy), contact: contact)
        if standalone.method == .options { request.headerFields.append(.accept, MediaType.sdp) }
        if let contentType = standalone.contentType { request.headerFields.append(.contentType, contentType) }
        request.headerFields.append(.userAgent, userAgent)
        request.body = standalone.body
        return request
    }

    private func send(
        _ request: SIPRequest, to destination: Destination, authenticator: DigestAuthenticator?,
        completion: @escaping (Int) -> Void
    ) {
        var finished = false
        let done: (Int) -> Void = { status in
            guard !finished else { return }
            finished = true
            completion(status)
        }
        do {
            try engine.core.sendRequest(request, to: destination) { [weak self] event in
                switch event {
                case .response(let response) where response.statusCode >= 200:
                    if response.statusCode == 401 || response.statusCode == 407, var authenticator,
                        var retry = try? authenticator.respond(to: response, for: request)
                    {
                        retry.headerFields.removeAll(.via)
                        if let cseq = (try? request.cseq) ?? nil {
                            retry.headerFields.set(.cseq, CSeq(cseq.sequenceNumber + 1, cseq.method))
                        }
                        finished = true
                        self?.send(retry, to: destination, authenticator: nil, completion: completion)
                    } else {
                        done(response.statusCode)
                    }
                case .response:
                    break
                case .timeout:
                    done(408)
                case .transportError:
                    done(503)
                case .terminated:
                    done(408)
                }
            }
        } catch {
            done(503)
        }
    }
}
