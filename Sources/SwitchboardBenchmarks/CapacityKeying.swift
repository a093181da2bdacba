import DTLS
import Media
import SDP

// `--keying sdes|dtls` and `--suite` of the capacity ramp (MediaCapacityBenchmark.swift). SDES: each pair's two
// directions get random master keys of the suite, as `a=crypto` hands them over. DTLS: each pair runs a DTLS 1.2
// handshake between two DTLSEngines in memory (client and server, one ECDSA P-256 certificate per side made
// once, as a provider has one for all its calls, each end checking the other's fingerprint) and keys each
// direction from the exported keying material with the negotiated profile's suite (RFC 5764 §4.2). The
// handshakes run on the loop thread before the step's streams start; their count and thread CPU are reported
// apart from the measured window.

/// How the capacity ramp keys each stream pair's SRTP (`--keying`, `--suite`).
struct CapacityKeying: Sendable {
    /// Where the keys come from.
    enum Method: String, Sendable, CaseIterable {
        /// Random master keys, as SDES hands them over in the SDP (RFC 4568).
        case sdes
        /// A DTLS-SRTP handshake per pair (RFC 5764).
        case dtls
    }

    /// A `--suite` value.
    enum Suite: String, Sendable, CaseIterable {
        /// SDES: AES_CM_128_HMAC_SHA1_80; DTLS: the engine's default profile order (AEAD_AES_128_GCM first).
        case standard = "default"
        case aesCM80 = "aes-cm-80"
        case aesCM32 = "aes-cm-32"
        case aesGCM128 = "aes-gcm-128"

        /// The one profile both DTLS ends offer and accept; `nil` for the default order.
        var profile: DTLSSRTPProfile? {
            switch self {
            case .standard: nil
            case .aesCM80: .aes128CMSHA1_80
            case .aesCM32: .aes128CMSHA1_32
            case .aesGCM128: .aeadAES128GCM
            }
        }
    }

    var method = Method.sdes
    var suite = Suite.standard

    /// The profiles both DTLS ends offer (client) and accept (server), in preference order.
    var profiles: [DTLSSRTPProfile] { suite.profile.map { [$0] } ?? DTLSSRTPProfile.defaultPreference }

    /// The suite the streams run: with DTLS the profile the server picks from the client's offer (the first of
    /// `profiles`, since both ends use the same list).
    var cryptoSuite: CryptoSuite {
        switch method {
        case .sdes: suite.profile?.cryptoSuite ?? .aesCM128HMACSHA1_80
        case .dtls: profiles.first?.cryptoSuite ?? .aesCM128HMACSHA1_80
        }
    }

    /// The SRTP implementation when `--srtp` does not name one: DTLS keys go where MediaSession puts path keys
    /// (``SRTPContext``); SDES keeps the benchmark's historic default.
    var defaultBackend: SRTPBackend { method == .dtls ? .native : .libsrtp }

    /// `sdes-aes-cm-80`, `dtls-aes-gcm-128`, ...
    var name: String { "\(method.rawValue)-\(Self.shortName(cryptoSuite))" }

    /// The RESULT name of a codec's ramp: the codec's own for SDES with AES-CM-80 (the names the ramp had
    /// before keying was selectable), with the keying and suite otherwise.
    func resultName(_ codec: MediaBenchmarkCodec) -> String {
        method == .sdes && cryptoSuite.matches(.aesCM128HMACSHA1_80) ? codec.name : "\(codec.name)-\(name)"
    }

    /// `aes-cm-80`, `aes-cm-32`, `aes-gcm-128`, as the CLI's `connected` line names suites.
    static func shortName(_ suite: CryptoSuite) -> String {
        if suite.matches(.aesCM128HMACSHA1_80) { return "aes-cm-80" }
        if suite.matches(.aesCM128HMACSHA1_32) { return "aes-cm-32" }
        if suite.matches(.aeadAES128GCM) { return "aes-gcm-128" }
        return suite.rawValue
    }
}

/// Where a ramp's pairs get their keys, made once per run.
enum CapacityKeySource: Sendable {
    case sdes(CryptoSuite)
    case dtls(CapacityHandshaker)

    init(_ keying: CapacityKeying) throws {
        switch keying.method {
        case .sdes: self = .sdes(keying.cryptoSuite)
        case .dtls: self = .dtls(try CapacityHandshaker(profiles: keying.profiles))
        }
    }

    /// The suite both directions of every pair run.
    var cryptoSuite: CryptoSuite {
        switch self {
        case .sdes(let suite): suite
        case .dtls(let handshaker): handshaker.expected.cryptoSuite
        }
    }

    /// Whether each pair pays a handshake.
    var isDTLS: Bool {
        if case .dtls = self { return true }
        return false
    }

    /// One pair's master keys and salts: what the first end sends with (the second receives with), and what
    /// the second sends with.
    func pairKeys() throws -> (first: [UInt8], second: [UInt8]) {
        switch self {
        case .sdes(let suite):
            let length = suite.keySaltLength ?? 30
            return (randomBytes(length), randomBytes(length))
        case .dtls(let handshaker):
            let keys = try handshaker.handshake()
            return (keys.client.localMasterKeySalt, keys.server.localMasterKeySalt)
        }
    }
}

/// Random bytes for SDES-style master keys.
private func randomBytes(_ count: Int) -> [UInt8] {
    var random = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
}

/// Runs in-memory DTLS-SRTP handshakes between a client and a server configuration, each with its own
/// certificate and the other's fingerprint.
struct CapacityHandshaker: Sendable {
    let client: DTLSEngine.Configuration
    let server: DTLSEngine.Configuration
    /// The profile the server must pick.
    let expected: DTLSSRTPProfile

    /// Makes both identities.
    /// - Parameter profiles: what both ends offer and accept, in preference order (not empty).
    init(profiles: [DTLSSRTPProfile]) throws {
        guard let first = profiles.first else { throw MediaBenchmarkError("no DTLS-SRTP profile") }
        let alice = try DTLSIdentity.generate(commonName: "capacity-client")
        let bob = try DTLSIdentity.generate(commonName: "capacity-server")
        client = DTLSEngine.Configuration(
            role: .client, identity: alice, remoteFingerprints: [bob.fingerprint], srtpProfiles: profiles)
        server = DTLSEngine.Configuration(
            role: .server, identity: bob, remoteFingerprints: [alice.fingerprint], srtpProfiles: profiles)
        expected = first
    }

    /// One handshake: both engines made, the flights handed across until both have keys, the keys checked
    /// against each other and the expected profile.
    func handshake() throws -> (client: DTLSSRTPKeys, server: DTLSSRTPKeys) {
        try Self.handshake(client: client, server: server, expected: expected)
    }

    /// Shows that the ends check fingerprints: a client told another certificate's fingerprint must fail with
    /// `fingerprintMismatch`.
    /// - Returns: a line to print.
    func checkFingerprintMismatch() throws -> String {
        var wrong = client
        wrong.remoteFingerprints = [try DTLSIdentity.generate(commonName: "capacity-other").fingerprint]
        do {
            _ = try Self.handshake(client: wrong, server: server, expected: expected)
        } catch let error as DTLSError where error.code == .fingerprintMismatch {
            return "DTLS fingerprints checked: a client given another certificate's fingerprint failed (\(error.code))"
        }
        throw MediaBenchmarkError("a DTLS handshake against the wrong fingerprint did not fail with a mismatch")
    }

    private static func handshake(
        client: DTLSEngine.Configuration, server: DTLSEngine.Configuration, expected: DTLSSRTPProfile
    ) throws -> (client: DTLSSRTPKeys, server: DTLSSRTPKeys) {
        let alice = try DTLSEngine(configuration: client)
        let bob = try DTLSEngine(configuration: server)
        let now = SystemMediaClock().now()
        var clientKeys: DTLSSRTPKeys?
        var serverKeys: DTLSSRTPKeys?
        _ = try Self.datagrams(bob.start(at: now), keys: &serverKeys)
        var toServer = try Self.datagrams(alice.start(at: now), keys: &clientKeys)
        for _ in 0..<8 where clientKeys == nil || serverKeys == nil {
            var toClient: [[UInt8]] = []
            for datagram in toServer {
                toClient += try Self.datagrams(bob.receive(datagram, at: now), keys: &serverKeys)
            }
            toServer = []
            for datagram in toClient {
                toServer += try Self.datagrams(alice.receive(datagram, at: now), keys: &clientKeys)
            }
        }
        guard let clientKeys, let serverKeys else { throw MediaBenchmarkError("DTLS handshake did not complete") }
        guard clientKeys.profile == expected, serverKeys.profile == expected else {
            throw MediaBenchmarkError("DTLS negotiated \(clientKeys.profile)/\(serverKeys.profile), not \(expected)")
        }
        guard clientKeys.localMasterKeySalt == serverKeys.remoteMasterKeySalt,
            clientKeys.remoteMasterKeySalt == serverKeys.localMasterKeySalt
        else { throw MediaBenchmarkError("DTLS ends exported different SRTP keys") }
        return (clientKeys, serverKeys)
    }

    /// The datagrams among an engine's actions; its keys go to `keys`; a failure or close throws.
    private static func datagrams(_ actions: [DTLSAction], keys: inout DTLSSRTPKeys?) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        for action in actions {
            switch action {
            case .send(let datagram): out.append(datagram)
            case .connected(let connected): keys = connected
            case .failed(let error): throw error
            case .closed: throw MediaBenchmarkError("DTLS peer closed during the handshake")
            }
        }
        return out
    }
}
