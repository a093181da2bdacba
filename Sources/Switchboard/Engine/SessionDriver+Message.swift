import COpenSSL
import SDP
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Out-of-dialog MESSAGE (RFC 3428) from the provider.
extension SessionDriver {
    /// Sends a MESSAGE (RFC 3428) outside any dialog, answering one digest challenge; `completion` gets
    /// the final status (408 on timeout, 503 on a transport error).
    func sendMessage(
        to target: URI, from: SIPURI?, outboundProxy: SIPURI?, transport: SIPTransportKind?,
        credentials: (@Sendable (String) -> DigestCredentials?)?, contentType: String, body: [UInt8],
        completion: @escaping (Int) -> Void
    ) {
        // The account's transport reaches the outbound proxy too (a transport parameter in its URI wins).
        resolve(outboundProxy.map { .sip($0) } ?? target, transport: transport?.transportProtocol) {
            [weak self] (destination: Destination?) in
            guard let self, let destination else {
                completion(503)
                return
            }
            self.ensureListening(for: destination)
            let local = self.engine.transport.localAddress(for: destination) ?? .loopback()
            var fields = SIPFields()
            if var proxy = outboundProxy {
                if !proxy.isLooseRouter { proxy.parameters.set("lr", to: nil) }
                fields.append(.route, NameAddress(uri: .sip(proxy)))
            }
            fields.append(.maxForwards, 70)
            var fromAddress = NameAddress(uri: .sip(from ?? SIPURI(user: "switchboard", host: Self.host(local))))
            fromAddress.tag = self.core.makeTag()
            fields.append(.from, fromAddress)
            fields.append(.to, NameAddress(uri: target))
            fields.append(.callID, self.core.makeCallID())
            fields.append(.cseq, CSeq(1, .message))
            fields.append(.contentType, contentType)
            fields.append(.userAgent, self.settings.userAgent)
            let request = SIPRequest(method: .message, uri: target, headerFields: fields, body: body)
            let authenticator = credentials.map { DigestAuthenticator(credentials: $0) }
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
                            retry.headerFields.set(.cseq, CSeq(cseq.sequenceNumber + 1, .message))
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
