import SIPCore
import SIPMessage
import SIPTransaction

/// The UAS side: OPTIONS, MESSAGE, BYE, REGISTER -> 200; INVITE -> the configured status.
final class EndpointServer: @unchecked Sendable {
    // @unchecked Sendable: used only on the core's event loop.
    let core: SIPCore
    let inviteStatus: Int
    var counts: [String: Int] = [:]

    init(core: SIPCore, inviteStatus: Int) {
        self.core = core
        self.inviteStatus = inviteStatus
    }

    func start() {
        core.capabilities = Capabilities()
        core.onRequest = { [weak self] incoming in self?.handle(incoming) }
        core.onACK = { [weak self] _, _ in self?.counts["ACK2xx", default: 0] += 1 }
    }

    func handle(_ incoming: ServerRequest) {
        let request = incoming.request
        counts[request.method.rawValue, default: 0] += 1
        switch request.method {
        case .invite:
            core.respond(core.makeResponse(inviteStatus, to: request), to: incoming.transaction)
        case .options:
            var response = core.makeResponse(200, to: request)
            response.headerFields.append(.allow, "INVITE, ACK, CANCEL, BYE, OPTIONS, MESSAGE")
            response.headerFields.append(.accept, "application/sdp, text/plain")
            core.respond(response, to: incoming.transaction)
        case .message, .bye, .register, .info, .notify:
            core.respond(core.makeResponse(200, to: request), to: incoming.transaction)
        default:
            var response = core.makeResponse(501, to: request)
            response.headerFields.append(.allow, "INVITE, ACK, CANCEL, BYE, OPTIONS, MESSAGE")
            core.respond(response, to: incoming.transaction)
        }
    }

    func statsLine() -> String {
        let requests = counts.sorted { $0.key < $1.key }.map { "\($0.key.lowercased())=\($0.value)" }.joined(
            separator: " ")
        let t = core.transactionStatistics
        return
            "stats \(requests) absorbed=\(t.absorbed) response_retransmissions=\(core.statistics.responseRetransmissions) rejected=\(core.statistics.rejectedRequests) merged=\(t.mergedRequests)"
    }
}
