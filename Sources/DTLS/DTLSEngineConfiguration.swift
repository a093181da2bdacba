public import SDP

extension DTLSEngine {
    /// How an engine runs its handshake.
    public struct Configuration: Sendable {
        /// Client or server (RFC 5763 §5: from `a=setup`).
        public var role: DTLSRole
        /// Our certificate and key.
        public var identity: DTLSIdentity
        /// The peer's `a=fingerprint` values (RFC 8122). Empty when not known yet (the answer has not arrived,
        /// RFC 5763 §5): the handshake then runs, but no keys are handed out until
        /// ``DTLSEngine/setRemoteFingerprints(_:at:)`` gives them and the certificate matches.
        public var remoteFingerprints: [Fingerprint]
        /// The SRTP protection profiles we offer (client) or accept (server), in preference order.
        public var srtpProfiles: [DTLSSRTPProfile]
        /// The largest datagram we send, record headers included (records are cut to fit), 1200 by default.
        public var maximumDatagramSize: Int
        /// The first retransmission timeout of a flight (RFC 6347 §4.2.4.1), 1 s by default; at least 20 ms.
        public var initialRetransmissionTimeout: Duration
        /// The longest retransmission timeout after doubling, 8 s by default (RFC 6347 allows up to 60 s).
        public var maximumRetransmissionTimeout: Duration
        /// How long a handshake may take from ``DTLSEngine/start(at:)``, 15 s by default.
        public var handshakeTimeout: Duration

        /// - Parameters:
        ///   - role: client or server.
        ///   - identity: our certificate and key.
        ///   - remoteFingerprints: the peer's fingerprints, none yet by default.
        ///   - srtpProfiles: the profiles in preference order (`DTLSSRTPProfile.defaultPreference`).
        public init(
            role: DTLSRole, identity: DTLSIdentity, remoteFingerprints: [Fingerprint] = [],
            srtpProfiles: [DTLSSRTPProfile] = DTLSSRTPProfile.defaultPreference
        ) {
            self.role = role
            self.identity = identity
            self.remoteFingerprints = remoteFingerprints
            self.srtpProfiles = srtpProfiles
            self.maximumDatagramSize = 1200
            self.initialRetransmissionTimeout = .seconds(1)
            self.maximumRetransmissionTimeout = .seconds(8)
            self.handshakeTimeout = .seconds(15)
        }
    }
}
