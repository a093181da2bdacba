import ICE
import SDP
import SIPTransport
import STUN

/// What the peer's SDP says about ICE for the audio stream (RFC 8839 §5): its credentials, lite flag and
/// candidates. Pure.
struct RemoteICEDescription: Sendable, Hashable {
    var credentials: ICECredentials
    var isLite: Bool
    /// Its UDP candidates with IP addresses (FQDN and mDNS candidates are skipped, as §5.1 allows).
    var candidates: [ICECandidate]
    /// `a=remote-candidates` of its offer.
    var remoteCandidates: [ICERemoteCandidate]?
    /// The c=/m= address of component 1.
    var defaultAddress: STUNTransportAddress?

    /// What a description says about ICE.
    enum Reading: Sendable, Hashable {
        /// No ICE attributes: a plain call on the c=/m= address.
        case none
        /// ICE attributes, but the c=/m= address is none of the candidates (a middlebox rewrote it, §4.4.1.3)
        /// or the peer says `a=ice-mismatch`: ICE is not used.
        case mismatch
        /// ICE.
        case ice(RemoteICEDescription)
    }

    /// Reads the ICE attributes of `description`'s media section `index` and of its session level; malformed
    /// candidate lines are skipped, a malformed ufrag or password reads as no ICE.
    static func read(_ description: SessionDescription, mediaIndex index: Int) -> Reading {
        guard description.media.indices.contains(index) else { return .none }
        let media = description.media[index]
        if media.hasAttribute(named: "ice-mismatch") { return .mismatch }
        var ice = ICESDPAttributes()
        for attribute in description.attributes + media.attributes {
            _ = try? ice.parse(name: attribute.name.lowercased(), value: attribute.value)
        }
        guard let credentials = ice.credentials else { return .none }
        let address = description.connection(forMediaAt: index).flatMap { connection in
            SocketAddress(ip: connection.address, port: media.port).flatMap(STUNTransportAddress.init)
        }
        let candidates = ice.candidates.filter { $0.transport == .udp && $0.type.isKnown }
        if let address, !address.address.isUnspecified,
            !candidates.contains(where: { $0.component == 1 && $0.address == address })
        {
            return .mismatch
        }
        return .ice(
            RemoteICEDescription(
                credentials: credentials, isLite: ice.isLite, candidates: candidates,
                remoteCandidates: ice.remoteCandidates, defaultAddress: address))
    }

    /// The audio section a description's ICE applies to: the first audio m= line with a port.
    static func audioIndex(of description: SessionDescription) -> Int? {
        description.media.firstIndex { $0.port != 0 && $0.mediaType.matches(.audio) }
    }
}
