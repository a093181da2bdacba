import SIPAuthentication
import SIPMessage
import Synchronization
import Testing

/// A deterministic random source (SplitMix64), so nonces and cnonces repeat from run to run.
struct SeededRandom: RandomNumberGenerator, Sendable {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Accounts of a test server: user name -> password, per realm; swappable while a test runs.
final class Directory: Sendable {
    private let passwords: Mutex<[String: [String: String]]>

    init(_ passwords: [String: [String: String]]) { self.passwords = Mutex(passwords) }

    func set(realm: String, user: String, password: String) {
        passwords.withLock { $0[realm, default: [:]][user] = password }
    }

    func password(realm: String, user: String) -> String? { passwords.withLock { $0[realm]?[user] } }

    func users(realm: String) -> [String: String] { passwords.withLock { $0[realm] ?? [:] } }

    /// The verifier's lookup: by user name, or by user hash.
    func lookup(_ query: DigestVerifier.UserQuery) -> DigestCredentials? {
        for (user, password) in users(realm: query.realm) {
            let name = query.isUserhash ? (try? query.algorithm.userhash(username: user, realm: query.realm)) : user
            if name == query.username { return DigestCredentials(username: user, password: password) }
        }
        return nil
    }
}

enum Messages {
    static func request(
        _ method: SIPMethod, _ uri: String, body: String = "", cseq: UInt32 = 1, callID: String = "a84b4c76e66710"
    ) throws -> SIPRequest {
        SIPRequest(
            method: method, uri: try URI(uri),
            headerFields: [
                SIPField(name: .via, value: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds\(cseq)"),
                SIPField(name: .maxForwards, value: "70"),
                SIPField(name: .from, value: "<sip:alice@example.com>;tag=1928301774"),
                SIPField(name: .to, value: "<sip:alice@example.com>"),
                SIPField(name: .callID, value: callID),
                SIPField(name: .cseq, value: "\(cseq) \(method)"),
            ],
            body: Array(body.utf8))
    }

    /// The retry of a challenged request: next CSeq, new branch (RFC 3261 §8.1.3.5, §22.2).
    static func nextAttempt(_ request: SIPRequest) throws -> SIPRequest {
        var next = request
        let number = (try request.cseq?.sequenceNumber ?? 1) + 1
        next.headerFields.set(.cseq, CSeq(number, request.method))
        next.headerFields[.via] = "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds\(number)"
        return next
    }

    static func response(_ status: Int, to request: SIPRequest) -> SIPResponse {
        var response = SIPResponse(statusCode: status)
        for name in [SIPField.Name.via, .from, .to, .callID, .cseq] {
            for field in request.headerFields[fields: name] { response.headerFields.append(field) }
        }
        return response
    }
}

/// A registrar and/or proxy in one: each verifier is checked in turn; failures answer 401/407 with challenges.
struct TestServer {
    var verifiers: [DigestVerifier]
    let directory: Directory
    var now: UInt64 = 1_700_000_000
    /// Challenge for every failing verifier in one response (a proxy merging forks, RFC 3261 §16.7).
    var mergesChallenges = false
    /// Send `nextnonce` in Authentication-Info.
    var sendsNextNonce = false
    private(set) var verdicts: [DigestVerification] = []

    init(_ verifiers: [DigestVerifier], directory: Directory) {
        self.verifiers = verifiers
        self.directory = directory
    }

    mutating func handle(_ request: SIPRequest) throws -> SIPResponse {
        var failing: [(Int, DigestVerification)] = []
        var authorized: [(Int, DigestVerification)] = []
        for i in verifiers.indices {
            let verdict = verifiers[i].verify(request, now: now, users: directory.lookup)
            verdicts.append(verdict)
            if verdict.isAuthorized {
                authorized.append((i, verdict))
            } else {
                failing.append((i, verdict))
                if !mergesChallenges { break }
            }
        }
        if !failing.isEmpty {
            let status = failing.contains { verifiers[$0.0].kind == .proxy } ? 407 : 401
            var response = Messages.response(status, to: request)
            for (i, verdict) in failing { verifiers[i].addChallenges(to: &response, now: now, stale: verdict.isStale) }
            return response
        }
        var ok = Messages.response(200, to: request)
        for (i, verdict) in authorized where verifiers[i].kind == .www {
            if let info = try verifiers[i].authenticationInfo(
                for: verdict, responseBody: ok.bodyBytes, nextNonceAt: sendsNextNonce ? now : nil)
            {
                ok.headerFields.append(.authenticationInfo, info)
            }
        }
        return ok
    }
}
