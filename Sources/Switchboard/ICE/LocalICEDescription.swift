import ICE
import SDP
import STUN

/// What this side's SDP says about ICE for one call (RFC 8839 §4, §5): credentials, candidates, the default
/// candidate in c=/m=, and after completion only the selected pair's candidates, with `a=remote-candidates`
/// in the controlling side's offers. Pure.
struct LocalICEDescription: Sendable, Hashable {
    var credentials: ICECredentials
    /// Every gathered candidate, component 2 included when RTCP may need its own port.
    var candidates: [ICECandidate]
    /// Once ICE completed: the selected pair of each component (RFC 8839 §4.4.1.1.2: subsequent offers and
    /// answers carry only its local candidate, as the default destination).
    var selected: [Int: ICEPairInfo] = [:]
    /// Whether this side is the controlling agent (its offers then name the remote candidates it selected).
    var isControlling: Bool

    /// The candidate c=/m= (component 1) or a=rtcp (component 2) carry: the selected pair's local candidate
    /// once ICE completed; before, relayed if there is one, else server-reflexive, else host (RFC 8445
    /// §5.1.4: the one most likely to work for a peer without ICE), the highest priority of the type.
    func defaultCandidate(component: Int) -> ICECandidate? {
        if let chosen = selected[component] { return chosen.local.type == .peerReflexive ? nil : chosen.local }
        let mine = candidates.filter { $0.component == component }
        for type in [ICECandidateType.relayed, .serverReflexive, .host] {
            if let best = mine.filter({ $0.type == type }).max(by: { $0.priority < $1.priority }) { return best }
        }
        return nil
    }

    /// Whether component 2 (RTCP) has candidates.
    var hasComponent2: Bool { candidates.contains { $0.component == 2 } }

    /// The address, port and ICE attributes of an offer (`isOffer`) or an answer; `nil` without a component-1
    /// candidate.
    func media(isOffer: Bool) -> LocalMedia? {
        guard let rtp = selectedOrDefault(component: 1) else { return nil }
        var ice = ICESDPAttributes()
        ice.ufrag = credentials.ufrag
        ice.password = credentials.password
        ice.options = [.ice2]
        ice.candidates =
            selected.isEmpty ? candidates : selected.keys.sorted().compactMap { selectedOrDefault(component: $0) }
        if isOffer, isControlling, !selected.isEmpty {
            ice.remoteCandidates = selected.keys.sorted().compactMap { component in
                selected[component].map { ICERemoteCandidate(component: component, address: $0.remote.address) }
            }
        }
        var attributes: [Attribute] = []
        if ice.candidates.contains(where: { $0.component == 2 }), let rtcp = selectedOrDefault(component: 2) {
            let connection = Connection(address: rtcp.address.address.description)
            attributes.append(Attribute(RTCPAttribute(port: rtcp.address.port, connection: connection)))
        }
        for line in ice.attributeLines {
            let colon = line.firstIndex(of: ":")
            attributes.append(
                Attribute(
                    colon.map { String(line[..<$0]) } ?? line, colon.map { String(line[line.index(after: $0)...]) }))
        }
        return LocalMedia(host: rtp.address.address.description, port: rtp.address.port, attributes: attributes)
    }

    /// The selected pair's local candidate (a peer-reflexive one stands as its base's host candidate, which
    /// the SDP can name), else the default candidate.
    private func selectedOrDefault(component: Int) -> ICECandidate? {
        guard let chosen = selected[component] else { return defaultCandidate(component: component) }
        guard chosen.local.type == .peerReflexive else { return chosen.local }
        return candidates.first { $0.component == component && $0.address == chosen.local.base }
            ?? defaultCandidate(component: component)
    }
}

/// The address, port and extra attributes a session's SDP announces (the SDP/media hand-off).
struct LocalMedia: Sendable, Hashable {
    var host: String
    var port: UInt16
    /// Written at the end of the audio section (`OfferAnswerConfiguration.mediaAttributes`).
    var attributes: [Attribute] = []
}

extension Attribute {
    /// `a=ice-mismatch` (RFC 8839 §5.5): the offer's c=/m= address is none of its candidates, so ICE is not used.
    static let iceMismatch = Attribute("ice-mismatch")
}
