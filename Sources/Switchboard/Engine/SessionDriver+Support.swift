import COpenSSL
import SDP
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Building blocks of the session driver: session and offer/answer configuration, listeners, resolution.
extension SessionDriver {

    func sessionConfiguration(contactUser user: String, local: SocketAddress, _ destination: Destination)
        -> InviteSessionConfiguration
    {
        let contactURI = TransportForm.contact(
            user: user, host: Self.host(local), port: local.port, flow: destination.transport)
        var configuration = InviteSessionConfiguration(
            contact: NameAddress(uri: .sip(contactURI)), reliableProvisionalResponses: settings.reliableProvisionals,
            sessionTimer: settings.sessionInterval.map { SessionTimerConfiguration(interval: $0) },
            userAgent: settings.userAgent)
        configuration.t1 = settings.t1
        configuration.t2 = settings.t2
        return configuration
    }

    func offerAnswer(_ key: SessionKey, local: SocketAddress, codecs: [Codec], srtp: SRTPPolicy)
        -> OfferAnswer
    {
        let list: [SDP.Codec]
        if let cached = codecListCache, cached.codecs == codecs {
            list = cached.list
        } else {
            list =
                codecs.map {
                    switch $0.code {
                    case .opus: .opus()
                    case .pcmu: .pcmu
                    case .pcma: .pcma
                    }
                } + [.telephoneEvent()]
            codecListCache = (codecs, list)
        }
        let policy: SDP.SRTPPolicy =
            switch srtp.code {
            case .off: .off
            case .optional: .optional
            case .mandatory: .mandatory
            }
        let media = mediaAddress(key, local.host)
        let configuration = OfferAnswerConfiguration(
            address: media.host, rtpPort: media.port, codecs: list, srtpPolicy: policy)
        return OfferAnswer(
            configuration: configuration, random: engine.environment.random.generator,
            keySource: CryptographicKeySource(random: engine.environment.random))
    }

    /// The host part for a local address (its IP, which always parses as one).
    static func host(_ address: SocketAddress) -> SIPHost {
        if let host = SIPHost(address.host) { return host }
        return .loopbackIPv4
    }

    /// A UDP listener is needed to send at all (requests leave from it); streams connect on demand.
    func ensureListening(for destination: Destination) {
        let family = destination.address.family
        guard engine.transport.listeningAddress(.udp, family: family) == nil else { return }
        let wildcard = SocketAddress(ip: family == .ipv4 ? "0.0.0.0" : "::", port: 0) ?? .loopback()
        _ = try? engine.transport.listen(.udp, on: wildcard)
    }

    /// Resolves `uri` to its first destination: at once for numeric hosts (so requests and ACKs keep their
    /// order), off the loop through RFC 3263 for names. `transport` (the account's or the dialog's) asks for
    /// its flow through `TransportForm`, unless the URI names one.
    func resolve(
        _ uri: URI, transport: SIPTransport.TransportProtocol? = nil, _ done: @escaping (Destination?) -> Void
    ) {
        guard let given = uri.sipURI else {
            done(nil)
            return
        }
        let sip = TransportForm.uri(given, for: transport)
        let resolver = SIPResolver()
        if sip.host.kind != .hostname {
            done((try? resolver.resolveNow(sip))?.first)
            return
        }
        let target = sip
        let engine = self.engine
        let box = ResolutionCallback(done)
        Task.detached {
            let destination = (try? await resolver.resolve(target))?.first
            engine.execute { box.body(destination) }
        }
    }
}

/// Carries a loop-confined callback through the resolver's task and back to the loop.
final class ResolutionCallback: @unchecked Sendable {
    // @unchecked Sendable: `body` is created on the loop and only ever called back on the loop.
    let body: (Destination?) -> Void
    init(_ body: @escaping (Destination?) -> Void) { self.body = body }
}

/// SRTP master keys from OpenSSL's CSPRNG (`RAND_bytes`), as RFC 4568 §6.1 asks; from the engine's own
/// source when it brings one (a seeded one in tests).
struct CryptographicKeySource: SRTPKeySource {
    let random: EngineRandom

    mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        guard count > 0, count <= 1024 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        if random !== EngineRandom.system {
            bytes.withUnsafeMutableBytes { random.bytes.fill($0) }
            return bytes
        }
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        return ok == 1 ? bytes : nil
    }
}
