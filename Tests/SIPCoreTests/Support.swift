import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SwitchboardTesting

/// A virtual loop and network with cores on it.
final class CoreWorld {
    let loop = VirtualEventLoop()
    let network: VirtualNetwork

    init(seed: UInt64 = 1) {
        network = VirtualNetwork(loop: loop, seed: seed)
    }

    func core(_ ip: String, listening: [TransportProtocol] = [.udp], seed: UInt64) throws -> SIPCore {
        try network.makeCore(host: ip, listening: listening, seed: seed)
    }

    /// Sends a request of `method` from `core` to `ip`:5060 in a new client transaction.
    func send(_ method: SIPMethod, from core: SIPCore, to ip: String, over transport: TransportProtocol = .udp)
        -> ClientOutcome
    {
        let outcome = ClientOutcome()
        loop.withLoop {
            let uri = "sip:bob@\(ip)"
            guard let address = SocketAddress(ip: ip, port: 5060), let target = try? URI(uri) else { return }
            var request = SIPRequest(method: method, uri: target)
            request.headerFields.append(.from, "<sip:alice@example.com>;tag=\(core.makeTag())")
            request.headerFields.append(.to, "<\(uri)>")
            request.headerFields.append(.callID, core.makeCallID())
            request.headerFields.append(.cseq, "1 \(method.rawValue)")
            request.headerFields.append(.maxForwards, "70")
            request.headerFields.append(.contentLength, "0")
            let destination = Destination(transport: transport, address: address)
            _ = try? core.sendRequest(request, to: destination) { event in outcome.record(event) }
        }
        return outcome
    }
}

/// What a client transaction heard.
final class ClientOutcome {
    var statuses: [Int] = []
    var timedOut = false
    var transportErrors: [TransportError.Code] = []

    func record(_ event: ClientTransactionEvent) {
        switch event {
        case .response(let response): statuses.append(response.statusCode)
        case .timeout: timedOut = true
        case .transportError(let error): transportErrors.append(error?.code ?? .system)
        case .terminated: break
        }
    }
}

extension SIPCore {
    /// Answers every request with `status`.
    func answerEverything(with status: Int) {
        loop.execute { [self] in
            onRequest = { [unowned self] request in
                respond(makeResponse(status, to: request.request), to: request.transaction)
            }
        }
    }
}
