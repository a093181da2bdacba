import DTLS
import ICE
import Media
import SDP
import STUN

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The offer/answer half: the SDP through files. `OfferAnswer` writes and reads the WebRTC profile
/// (UDP/TLS/RTP/SAVPF, fingerprint, setup, tls-id, mid, BUNDLE, rtcp-mux); this side adds the ICE attributes
/// (`mediaAttributes`) and reads the peer's.
extension SDPEndpoint {
    func negotiate() throws(SDPEndpointFailure) {
        if options.isWebRTC {
            var generator = random
            credentials = ICECredentials.random(using: &generator)
            random = generator
            do throws(DTLSError) { identity = try DTLSIdentity.generate() } catch {
                throw SDPEndpointFailure(reason: "no DTLS identity: \(error)")
            }
        }
        var negotiation = OfferAnswer(configuration: configuration(), random: random, keySource: OpenSSLKeySource())
        switch options.role {
        case .offer:
            let offer: SessionDescription
            do throws(SDPError) { offer = try negotiation.makeOffer() } catch { throw failure("offer", error) }
            try write(offer)
            let answer = try readRemote()
            do throws(SDPError) { negotiated = try negotiation.receiveAnswer(answer) } catch {
                throw failure("answer", error)
            }
            try readICE(of: answer)
        case .answer:
            let offer = try readRemote()
            let answer: OfferAnswer.Answer
            do throws(SDPError) {
                try negotiation.receiveOffer(offer)
                answer = try negotiation.makeAnswer()
            } catch {
                throw failure("offer", error)
            }
            negotiated = answer.session
            try write(answer.sessionDescription)
            try readICE(of: offer)
        }
        if options.isWebRTC, negotiated?.dtls == nil {
            throw SDPEndpointFailure(reason: "the peer's SDP did not agree to DTLS-SRTP")
        }
    }

    private func failure(_ what: String, _ error: SDPError) -> SDPEndpointFailure {
        SDPEndpointFailure(reason: "the \(what) did not negotiate: \(error)")
    }

    /// What to offer or accept: the codecs asked for, rtcp-mux, and with `--webrtc` the WebRTC profile (DTLS
    /// keying with our sha-256 fingerprint, SRTP mandatory) and the ICE credentials and host candidate.
    func configuration() -> OfferAnswerConfiguration {
        var codecs: [Codec] = []
        for name in options.codecs {
            switch name {
            case "pcmu": codecs.append(.pcmu)
            case "pcma": codecs.append(.pcma)
            case "opus": codecs.append(.opus())
            default: continue
            }
        }
        var configuration = OfferAnswerConfiguration(
            address: options.address, rtpPort: socket.local.port, codecs: codecs.isEmpty ? [.pcmu] : codecs,
            isRTCPMuxEnabled: true)
        guard options.isWebRTC, let credentials, let identity else { return configuration }
        configuration.offersWebRTCProfile = true
        configuration.keying = .dtls
        configuration.srtpPolicy = .mandatory
        configuration.dtlsFingerprints = [identity.fingerprint]
        var ice = ICESDPAttributes()
        ice.ufrag = credentials.ufrag
        ice.password = credentials.password
        ice.candidates = [localCandidate]
        configuration.mediaAttributes = ice.attributeLines.map { line in
            let colon = line.firstIndex(of: ":")
            return Attribute(
                colon.map { String(line[..<$0]) } ?? line, colon.map { String(line[line.index(after: $0)...]) })
        }
        return configuration
    }

    /// Our one candidate: the socket's address, host type (RFC 8445 §5.1.2.1 priority).
    var localCandidate: ICECandidate {
        ICECandidate(
            foundation: "1", component: 1,
            priority: ICEPriority.candidate(type: .host, localPreference: 65535, component: 1),
            address: socket.local, type: .host)
    }

    /// Writes our SDP to --local-sdp whole (a temporary file renamed over it).
    func write(_ description: SessionDescription) throws(SDPEndpointFailure) {
        let temporary = options.localSDP + ".tmp"
        guard let file = fopen(temporary, "w") else {
            throw SDPEndpointFailure(reason: "cannot write \(temporary)")
        }
        let bytes = description.serialized()
        let written = fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        guard written == bytes.count, rename(temporary, options.localSDP) == 0 else {
            throw SDPEndpointFailure(reason: "cannot write \(options.localSDP)")
        }
        emit("sdp-written \(options.role.rawValue) \(options.localSDP) port=\(socket.local.port)")
    }

    /// Waits (bounded by the setup deadline) for --remote-sdp, then parses it.
    func readRemote() throws(SDPEndpointFailure) -> SessionDescription {
        var bytes: [UInt8]?
        while bytes == nil {
            bytes = Self.readFile(options.remoteSDP)
            if bytes == nil {
                guard Self.monotonicNanoseconds() < setupDeadline else {
                    throw SDPEndpointFailure(reason: "no SDP in \(options.remoteSDP) within \(options.timeout) s")
                }
                usleep(20_000)
            }
        }
        do throws(SDPError) {
            return try SessionDescription(parsing: bytes ?? [])
        } catch {
            throw SDPEndpointFailure(reason: "the peer's SDP does not parse: \(error)")
        }
    }

    /// The file's bytes, at most 64 KiB; `nil` when it does not exist (yet) or is empty.
    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = fread(&buffer, 1, buffer.count, file)
        guard count > 0 else { return nil }
        return Array(buffer[0..<count])
    }

    /// With `--webrtc`, the peer's ICE parameters and candidates (media level, else session level).
    func readICE(of description: SessionDescription) throws(SDPEndpointFailure) {
        guard options.isWebRTC, let media = description.media.first else { return }
        var ice = ICESDPAttributes()
        for attribute in description.attributes + media.attributes {
            _ = try? ice.parse(name: attribute.name, value: attribute.value)
        }
        guard let credentials = ice.credentials else {
            throw SDPEndpointFailure(reason: "the peer's SDP has no ICE credentials")
        }
        remoteICE = RemoteICE(credentials: credentials, isLite: ice.isLite, candidates: ice.candidates)
    }
}

/// What the peer's SDP says for ICE.
struct RemoteICE {
    var credentials: ICECredentials
    var isLite: Bool
    var candidates: [ICECandidate]
}
