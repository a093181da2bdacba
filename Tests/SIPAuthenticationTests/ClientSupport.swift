import SIPAuthentication
import SIPMessage
import Synchronization
import Testing

/// A client's credential store: per realm, changeable (a rotating token).
final class Keychain: Sendable {
    private let entries: Mutex<[String: (String, String)]>

    init(_ entries: [String: (String, String)]) { self.entries = Mutex(entries) }

    func set(realm: String, user: String, password: String) { entries.withLock { $0[realm] = (user, password) } }

    var lookup: DigestAuthenticator.CredentialsLookup {
        { realm in
            self.entries.withLock { $0[realm] }.map { DigestCredentials(username: $0.0, password: $0.1) }
        }
    }
}

/// Sends a request through `server`, answering challenges with `client`, as a user agent would.
struct Exchange {
    var sent: [SIPRequest] = []
    var responses: [SIPResponse] = []

    var final: SIPResponse? { responses.last }

    static func run(
        _ request: SIPRequest, client: inout DigestAuthenticator, server: inout TestServer, preauthorize: Bool = true,
        maximumRounds: Int = 6
    ) throws -> Exchange {
        var exchange = Exchange()
        var request = request
        if preauthorize { try client.authorize(&request) }
        for _ in 0..<maximumRounds {
            exchange.sent.append(request)
            let response = try server.handle(request)
            exchange.responses.append(response)
            guard response.statusCode == 401 || response.statusCode == 407 else { return exchange }
            request = try Messages.nextAttempt(try client.respond(to: response, for: request))
        }
        Issue.record("no final answer after \(maximumRounds) rounds")
        return exchange
    }
}

extension SIPRequest {
    /// The Digest credentials of one kind.
    func credentials(_ kind: ChallengeKind) throws -> [Credentials] {
        kind == .www ? try authorization : try proxyAuthorization
    }
}
