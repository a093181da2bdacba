import SDP
import SIPAuthentication
import SIPMessage

@testable import SIPUserAgent

/// A UAC session driven by hand: the test writes the responses a peer would send.
struct ScriptedCall {
    var session: InviteSession
    var invite: SIPRequest
    var token: RequestToken
    var actions: [SessionAction]

    init(
        offersInInvite: Bool = true, configure: (inout InviteSessionConfiguration) -> Void = { _ in },
        authenticator: DigestAuthenticator? = nil
    ) throws {
        var configuration = InviteSessionConfiguration(contact: try address("<sip:alice@192.0.2.10>"))
        configure(&configuration)
        let call = OutgoingCall(
            requestURI: try uri("sip:bob@biloxi.example"), from: try address("Alice <sip:alice@atlanta.example>"),
            to: try address("<sip:bob@biloxi.example>"), callID: "scripted-call", localTag: "atag",
            initialSequence: 10, offersInInvite: offersInInvite)
        session = InviteSession(
            outgoing: call, configuration: configuration,
            offerAnswer: .testing(address: "192.0.2.10", port: 40000), random: SeededRandom(3),
            authenticator: authenticator)
        actions = session.start()
        guard let first = actions.requests.first, let token = actions.tokens.first else {
            throw ScriptError.noInvite
        }
        invite = first
        self.token = token
    }

    enum ScriptError: Error { case noInvite }

    /// A response to the INVITE (or to `request`) with `status`, To tag `tag`, and extra lines.
    func reply(
        _ status: Int, tag: String? = "btag", to request: SIPRequest? = nil, extra: [String] = [], sdp: String? = nil
    ) throws -> SIPResponse {
        let request = request ?? invite
        var response = SIPResponse(answering: request, status: status, toTag: tag)
        if tag == nil, var to = try response.to {
            to.tag = nil
            response.headerFields.set(.to, to)
        }
        response.headerFields.append(.contact, try address("<sip:bob@192.0.2.20>"))
        for line in extra {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = SIPField.Name(String(parts[0])) else { continue }
            response.headerFields.append(SIPField(name: name, value: parts[1].trimmingCharacters(in: " ")))
        }
        if let sdp {
            response.headerFields.set(.contentType, MediaType.sdp)
            response.body = Array(sdp.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        }
        return response
    }

    /// Feeds a response for `token` (the INVITE's by default).
    mutating func receive(_ response: SIPResponse, for token: RequestToken? = nil) -> [SessionAction] {
        session.receiveResponse(response, for: token ?? self.token)
    }
}

/// An answer SDP from 192.0.2.20:50000 with PCMU.
let peerAnswer = """
    v=0
    o=bob 2808844564 2808844564 IN IP4 192.0.2.20
    s=-
    c=IN IP4 192.0.2.20
    t=0 0
    m=audio 50000 RTP/AVP 0 101
    a=rtpmap:0 PCMU/8000
    a=rtpmap:101 telephone-event/8000
    a=fmtp:101 0-16
    a=sendrecv

    """

/// An offer SDP from 192.0.2.20:50000 with PCMU.
let peerOffer = peerAnswer

extension String {
    func trimmingCharacters(in set: String) -> String {
        Substring(self).trimmingCharacters(in: set)
    }
}
