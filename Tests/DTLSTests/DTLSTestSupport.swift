import DTLS
import Media
import SDP

/// Identities made once for the whole suite (key generation is the slow part).
enum TestIdentities {
    private static let made = Result { () throws(DTLSError) -> [DTLSIdentity] in
        try ["alice", "bob", "mallory"].map { name throws(DTLSError) in
            try DTLSIdentity.generate(commonName: name, notBefore: 1_700_000_000)
        }
    }

    static func alice() throws -> DTLSIdentity { try made.get()[0] }
    static func bob() throws -> DTLSIdentity { try made.get()[1] }
    static func mallory() throws -> DTLSIdentity { try made.get()[2] }
}

/// Two engines joined by an in-memory link, in virtual time: a client (alice) and a server (bob).
final class DTLSPair {
    let client: DTLSEngine
    let server: DTLSEngine
    var now = MediaInstant.seconds(100)
    /// Datagrams in flight, to the client and to the server.
    var toClient: [[UInt8]] = []
    var toServer: [[UInt8]] = []
    /// Every action that was not a send, per side.
    var clientEvents: [DTLSAction] = []
    var serverEvents: [DTLSAction] = []
    /// Every datagram each side sent.
    var clientSent: [[UInt8]] = []
    var serverSent: [[UInt8]] = []

    /// A client (alice) and a server (bob, unless `serverIdentity` says otherwise) that expect each other's
    /// fingerprints, unless `clientSees`/`serverSees` name other identities.
    init(
        clientProfiles: [DTLSSRTPProfile] = DTLSSRTPProfile.defaultPreference,
        serverProfiles: [DTLSSRTPProfile] = DTLSSRTPProfile.defaultPreference,
        clientSees: DTLSIdentity? = nil, serverSees: DTLSIdentity? = nil, serverIdentity: DTLSIdentity? = nil,
        configure: (inout DTLSEngine.Configuration, inout DTLSEngine.Configuration) -> Void = { _, _ in }
    ) throws {
        let alice = try TestIdentities.alice()
        let bob = try TestIdentities.bob()
        var clientConfiguration = DTLSEngine.Configuration(
            role: .client, identity: alice, remoteFingerprints: [(clientSees ?? bob).fingerprint],
            srtpProfiles: clientProfiles)
        var serverConfiguration = DTLSEngine.Configuration(
            role: .server, identity: serverIdentity ?? bob, remoteFingerprints: [(serverSees ?? alice).fingerprint],
            srtpProfiles: serverProfiles)
        configure(&clientConfiguration, &serverConfiguration)
        client = try DTLSEngine(configuration: clientConfiguration)
        server = try DTLSEngine(configuration: serverConfiguration)
    }

    func take(_ actions: [DTLSAction], fromClient: Bool) {
        for action in actions {
            switch action {
            case .send(let datagram):
                if fromClient {
                    clientSent.append(datagram)
                    toServer.append(datagram)
                } else {
                    serverSent.append(datagram)
                    toClient.append(datagram)
                }
            default:
                if fromClient { clientEvents.append(action) } else { serverEvents.append(action) }
            }
        }
    }

    func start() {
        take(server.start(at: now), fromClient: false)
        take(client.start(at: now), fromClient: true)
    }

    /// Delivers everything in flight, both ways, until nothing is left (bounded).
    func deliver(droppingToServer drop: (Int) -> Bool = { _ in false }) throws {
        var delivered = 0
        for _ in 0..<50 where !(toClient.isEmpty && toServer.isEmpty) {
            let forServer = toServer
            toServer = []
            for datagram in forServer {
                defer { delivered += 1 }
                if drop(delivered) { continue }
                take(try Self.receive(datagram, by: server, at: now), fromClient: false)
            }
            let forClient = toClient
            toClient = []
            for datagram in forClient { take(try Self.receive(datagram, by: client, at: now), fromClient: true) }
        }
    }

    /// What an engine does with a datagram; one that has ended drops it (as a driver would).
    static func receive(_ datagram: [UInt8], by engine: DTLSEngine, at now: MediaInstant) throws -> [DTLSAction] {
        do {
            return try engine.receive(datagram, at: now)
        } catch  where error.code == .notConnected {
            return []
        }
    }

    /// Moves virtual time to `instant`, running both engines' timers.
    func advance(to instant: MediaInstant) {
        now = instant
        take(client.advance(to: now), fromClient: true)
        take(server.advance(to: now), fromClient: false)
    }

    static func keys(_ events: [DTLSAction]) -> DTLSSRTPKeys? {
        for case .connected(let keys) in events { return keys }
        return nil
    }

    static func failure(_ events: [DTLSAction]) -> DTLSError? {
        for case .failed(let error) in events { return error }
        return nil
    }
}
