import COpenSSL
import SDP
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Requests outside any dialog from the provider: MESSAGE (RFC 3428) and OPTIONS (RFC 3261 §11).
extension SessionDriver {
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

    /// Sends a MESSAGE (RFC 3428) outside any dialog, answering one digest challenge; `completion` gets
    /// the final status (408 on timeout, 503 on a transport error).
    func sendMessage(
        to target: URI, from: SIPURI?, outboundProxy: SIPURI?, transport: SIPTransportKind?,
        credentials: (@Sendable (String) -> DigestCredentials?)?, contentType: String, body: [UInt8],
        completion: @escaping (Int) -> Void
    ) {
        send(
            OutOfDialogRequest(
                method: .message, target: target, from: from, outboundProxy: outboundProxy, transport: transport,
                credentials: credentials, contentType: contentType, body: body),
            completion: completion)
    }

    /// Sends `standalone` (MESSAGE, or OPTIONS with a Contact and `Accept: application/sdp`) to its target in
    /// the account's transport form (`TransportForm`), answering one digest challenge; `completion` gets the
    /// final status (408 on timeout, 503 on a transport error).
    func send(_ standalone: OutOfDialogRequest, completion: @escaping (Int) -> Void) {
        let transport = standalone.transport?.transportProtocol
        let requestURI = TransportForm.uri(standalone.target, for: transport)
        // The account's transport reaches the outbound proxy too (a transport parameter in its URI wins).
        resolve(standalone.outboundProxy.map { .sip($0) } ?? requestURI, transport: transport) {
            [weak self] (destination: Destination?) in
            guard let self, let destination else {
                completion(503)
                return
            }
            self.ensureListening(for: destination)
            let local = self.engine.transport.localAddress(for: destination) ?? .loopback()
            var routeSet: [NameAddress] = []
            if var proxy = standalone.outboundProxy {
                if !proxy.isLooseRouter { proxy.parameters.set("lr", to: nil) }
                routeSet.append(NameAddress(uri: .sip(proxy)))
            }
            let fromURI = standalone.from ?? SIPURI(user: "switchboard", host: Self.host(local))
            // OPTIONS carries a Contact in the flow's form (RFC 3261 §11.1); MESSAGE makes no dialog and has none.
            let contact =
                standalone.method == .options
                ? NameAddress(
                    uri: .sip(
                        TransportForm.contact(
                            user: fromURI.user ?? "switchboard", host: Self.host(local), port: local.port,
                            flow: destination.transport)))
                : nil
            var request = StandaloneRequest.make(
                standalone.method, requestURI: requestURI, from: NameAddress(uri: .sip(fromURI)),
                to: NameAddress(uri: standalone.target), callID: self.core.makeCallID(), localTag: self.core.makeTag(),
                routeSet: routeSet, contact: contact)
            if standalone.method == .options { request.headerFields.append(.accept, MediaType.sdp) }
            if let contentType = standalone.contentType { request.headerFields.append(.contentType, contentType) }
            request.headerFields.append(.userAgent, self.settings.userAgent)
            request.body = standalone.body
            let authenticator = standalone.credentials.map { DigestAuthenticator(credentials: $0) }
            self.sendMessageRequest(request, to: destination, authenticator: authenticator, completion: completion)
        }
    }

    private func sendMessageRequest(
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
            try core.sendRequest(request, to: destination) { [weak self] event in
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
                        self?.sendMessageRequest(retry, to: destination, authenticator: nil, completion: completion)
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
