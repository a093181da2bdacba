import SIPMessage

extension DigestAuthenticator {
    /// The challenges to answer, one per (kind, realm) in the order the realms first appear, each with the
    /// credentials that answer it: the strongest algorithm the credentials and OpenSSL can answer, ties to
    /// the topmost (RFC 8760 §2.4). Other schemes, unknown algorithms and unusable challenges are skipped.
    func select(from response: SIPResponse) throws(AuthenticationError) -> [(DigestChallenge, DigestCredentials)] {
        var offered: [(Challenge, ChallengeKind)] = []
        do throws(MessageError) {
            offered += try response.wwwAuthenticate.map { ($0, ChallengeKind.www) }
            offered += try response.proxyAuthenticate.map { ($0, ChallengeKind.proxy) }
        } catch {
            throw AuthenticationError(.malformedChallenge, detail: error.reasonPhrase)
        }
        guard !offered.isEmpty else {
            throw AuthenticationError(.notAChallenge, detail: "no WWW-Authenticate or Proxy-Authenticate")
        }

        var groups: [[DigestChallenge]] = []
        for (challenge, kind) in offered {
            guard let digest = DigestChallenge(challenge, kind: kind) else { continue }
            if let i = groups.firstIndex(where: { $0[0].kind == kind && $0[0].realm == digest.realm }) {
                groups[i].append(digest)
            } else {
                groups.append([digest])
            }
        }
        guard !groups.isEmpty else {
            let schemes = offered.map(\.0.scheme).joined(separator: ", ")
            throw AuthenticationError(.noSupportedChallenge, detail: "offered: \(schemes)")
        }

        var selected: [(DigestChallenge, DigestCredentials)] = []
        for group in groups {
            let realm = group[0].realm
            guard let credentials = lookup(realm) else {
                throw AuthenticationError(.noCredentials, realm: realm)
            }
            var best: DigestChallenge?
            for candidate in group
            where credentials.secret.canAnswer(candidate.algorithm) && candidate.algorithm.isAvailable {
                if best.map({ candidate.algorithm.strength > $0.algorithm.strength }) ?? true { best = candidate }
            }
            guard let best else {
                let algorithms = group.map(\.algorithm.name).joined(separator: ", ")
                throw AuthenticationError(
                    .noSupportedChallenge, realm: realm, detail: "cannot answer \(algorithms) with these credentials")
            }
            selected.append((best, credentials))
        }
        return selected
    }

    /// The Digest credentials `request` carries for a realm, if any.
    static func sentCredentials(in request: SIPRequest, kind: ChallengeKind, realm: String) -> Credentials? {
        let all: [Credentials]
        switch kind {
        case .www: all = (try? request.authorization) ?? []
        case .proxy: all = (try? request.proxyAuthorization) ?? []
        }
        return all.first { $0.isDigest && $0.realm == realm }
    }

    /// Removes the Authorization (or Proxy-Authorization) fields for a realm, keeping every other field.
    static func removeCredentials(from request: inout SIPRequest, kind: ChallengeKind, realm: String) {
        let name = kind.credentialsField
        request.headerFields.removeAll { field in
            guard field.name == name else { return false }
            let values: [Credentials]
            switch kind {
            case .www: values = (try? SIPFields([field]).authorization) ?? []
            case .proxy: values = (try? SIPFields([field]).proxyAuthorization) ?? []
            }
            return values.contains { $0.isDigest && $0.realm == realm }
        }
    }
}
