import DTLS
import Media

// libFuzzer entry point over the DTLS-SRTP engine in both roles and the RFC 7983 routing that hands it
// datagrams. The first byte picks what runs; the rest is a sequence of datagrams, each a 2-byte length and its
// bytes. Built only by scripts/fuzz (`--sanitize=fuzzer`); a plain build makes an empty program.

/// The two certificates, made on first use (a static, so it does not depend on top-level code running).
enum Identities {
    static let local = try? DTLSIdentity.generate(commonName: "fuzz", notBefore: 1_700_000_000)
    static let peer = try? DTLSIdentity.generate(commonName: "peer", notBefore: 1_700_000_000)
}

/// The datagrams packed after the mode byte.
func datagrams(_ bytes: ArraySlice<UInt8>) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var rest = bytes
    while rest.count >= 2, result.count < 32 {
        let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
        rest = rest.dropFirst(2)
        let take = min(length, rest.count)
        result.append(Array(rest.prefix(take)))
        rest = rest.dropFirst(take)
    }
    return result
}

/// Feeds datagrams to an engine, moving time on so its timers run too.
func feed(_ engine: DTLSEngine, _ inputs: [[UInt8]]) {
    var now = MediaInstant.seconds(1)
    _ = engine.start(at: now)
    for datagram in inputs {
        // Route as the media session does (RFC 7983), but hand everything over: the engine must refuse
        // what is not DTLS too.
        _ = MediaDatagramKind(classifying: datagram)
        _ = try? engine.receive(datagram, at: now)
        now = now + .milliseconds(700)
        _ = engine.advance(to: now)
        _ = engine.nextDeadline
    }
    _ = engine.close()
}

/// A connected pair, then the datagrams to the client after the handshake.
func connectedThenFeed(_ inputs: [[UInt8]], identity: DTLSIdentity, peer: DTLSIdentity) {
    guard
        let client = try? DTLSEngine(
            configuration: .init(role: .client, identity: identity, remoteFingerprints: [peer.fingerprint])),
        let server = try? DTLSEngine(
            configuration: .init(role: .server, identity: peer, remoteFingerprints: [identity.fingerprint]))
    else { return }
    let now = MediaInstant.seconds(1)
    var toServer = client.start(at: now)
    _ = server.start(at: now)
    for _ in 0..<10 {
        var toClient: [DTLSAction] = []
        for case .send(let datagram) in toServer { toClient += (try? server.receive(datagram, at: now)) ?? [] }
        toServer = []
        for case .send(let datagram) in toClient { toServer += (try? client.receive(datagram, at: now)) ?? [] }
    }
    feed(client, inputs)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first, let identity = Identities.local, let peer = Identities.peer else { return 0 }
    let inputs = datagrams(bytes.dropFirst())
    switch mode % 4 {
    case 0:
        let configuration = DTLSEngine.Configuration(
            role: .server, identity: identity, remoteFingerprints: [peer.fingerprint])
        if let server = try? DTLSEngine(configuration: configuration) { feed(server, inputs) }
    case 1:
        if let client = try? DTLSEngine(configuration: .init(role: .client, identity: identity)) {
            feed(client, inputs)
        }
    case 2:
        guard let server = try? DTLSEngine(configuration: .init(role: .server, identity: identity)) else { break }
        for datagram in inputs where MediaDatagramKind(classifying: datagram) == .dtls {
            _ = try? server.receive(datagram, at: .zero)
        }
    default:
        connectedThenFeed(inputs, identity: identity, peer: peer)
    }
    return 0
}
