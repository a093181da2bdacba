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

/// The offer/answer half: the SDP through files, the WebRTC profile's attributes.
///
/// The SDP module on this branch offers and answers RTP/AVP(F) and RTP/SAVP(F) only, so with `--webrtc` the
/// driver writes its m= line's profile as UDP/TLS/RTP/SAVPF and reads the peer's UDP/TLS/RTP/SAVPF as RTP/AVP,
/// adding the ICE, fingerprint, setup and mid attributes itself; the keys then come from DTLS.
extension SDPEndpoint {
    static let webRTCProfile = "UDP/TLS/RTP/SAVPF"

    func negotiate() throws(SDPEndpointFailure) {
        if options.isWebRTC {
            var generator = random
            credentials = ICECredentials.random(using: &generator)
            random = generator
            do throws(DTLSError) { identity = try DTLSIdentity.generate() } catch {
                throw SDPEndpointFailure(reason: "no DTLS identity: \(error)")
            }
        }
        switch options.role {
        case .offer:
            var negotiation = OfferAnswer(
                configuration: configuration(setup: .actpass, mid: "0"), random: random, keySource: OpenSSLKeySource())
            let offer: SessionDescription
            do throws(SDPError) { offer = try negotiation.makeOffer() } catch { throw failure("offer", error) }
            try write(offer)
            let answer = try readRemote()
            do throws(SDPError) { negotiated = try negotiation.receiveAnswer(answer) } catch {
                throw failure("answer", error)
            }
            try readSecurity(of: answer, weOffered: true)
        case .answer:
            let offer = try readRemote()
            let mid = offer.media.first?.attribute(named: "mid")?.value
            // RFC 8842 §5.3: an actpass offer is answered active (we are the DTLS client); an active one passive.
            let setup: SetupRole = (try? offer.media.first?.setup) == .active ? .passive : .active
            var negotiation = OfferAnswer(
                configuration: configuration(setup: setup, mid: nil), random: random, keySource: OpenSSLKeySource())
            let answer: OfferAnswer.Answer
            do throws(SDPError) {
                try negotiation.receiveOffer(offer)
                answer = try negotiation.makeAnswer()
            } catch {
                throw failure("offer", error)
            }
            negotiated = answer.session
            var description = answer.sessionDescription
            // The answer names the offer's mid (RFC 9143 §7.2) when the SDP module did not echo it.
            if options.isWebRTC, let mid, !description.media.isEmpty,
                description.media[0].attribute(named: "mid") == nil
            {
                description.media[0].attributes.append(Attribute("mid", mid))
            }
            try write(description)
            try readSecurity(of: offer, weOffered: false)
        }
    }

    private func failure(_ what: String, _ error: SDPError) -> SDPEndpointFailure {
        SDPEndpointFailure(reason: "the \(what) did not negotiate: \(error)")
    }

    /// What to offer or accept: the codecs asked for, rtcp-mux, and with `--webrtc` the ICE credentials and
    /// host candidate, the sha-256 fingerprint, `a=setup` and `a=mid`.
    func configuration(setup: SetupRole, mid: String?) -> OfferAnswerConfiguration {
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
        var ice = ICESDPAttributes()
        ice.ufrag = credentials.ufrag
        ice.password = credentials.password
        ice.candidates = [localCandidate]
        var attributes: [Attribute] = []
        for line in ice.attributeLines {
            let colon = line.firstIndex(of: ":")
            attributes.append(
                Attribute(
                    colon.map { String(line[..<$0]) } ?? line, colon.map { String(line[line.index(after: $0)...]) }))
        }
        attributes.append(Attribute(identity.fingerprint))
        attributes.append(Attribute(setup))
        if let mid { attributes.append(Attribute("mid", mid)) }
        configuration.mediaAttributes = attributes
        return configuration
    }

    /// Our one candidate: the socket's address, host type (RFC 8445 §5.1.2.1 priority).
    var localCandidate: ICECandidate {
        ICECandidate(
            foundation: "1", component: 1,
            priority: ICEPriority.candidate(type: .host, localPreference: 65535, component: 1),
            address: socket.local, type: .host)
    }

    /// Writes our SDP to --local-sdp whole (a temporary file renamed over it), with the WebRTC profile.
    func write(_ description: SessionDescription) throws(SDPEndpointFailure) {
        var text = description.description
        if options.isWebRTC {
            text = Self.replacingProfile(in: text, with: Self.webRTCProfile)
        }
        let temporary = options.localSDP + ".tmp"
        guard let file = fopen(temporary, "w") else {
            throw SDPEndpointFailure(reason: "cannot write \(temporary)")
        }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        guard written == bytes.count, rename(temporary, options.localSDP) == 0 else {
            throw SDPEndpointFailure(reason: "cannot write \(options.localSDP)")
        }
        emit("sdp-written \(options.role.rawValue) \(options.localSDP) port=\(socket.local.port)")
    }

    /// Waits (bounded by the setup deadline) for --remote-sdp, then parses it; a WebRTC profile reads as
    /// RTP/AVP for the SDP module.
    func readRemote() throws(SDPEndpointFailure) -> SessionDescription {
        var text: String?
        while text == nil {
            text = Self.readFile(options.remoteSDP)
            if text == nil {
                guard Self.monotonicNanoseconds() < setupDeadline else {
                    throw SDPEndpointFailure(reason: "no SDP in \(options.remoteSDP) within \(options.timeout) s")
                }
                usleep(20_000)
            }
        }
        let original = text ?? ""
        let plain = Self.replacingProfile(in: original, with: "RTP/AVP")
        do throws(SDPError) {
            return try SessionDescription(parsing: plain)
        } catch {
            throw SDPEndpointFailure(reason: "the peer's SDP does not parse: \(error)")
        }
    }

    /// The file's text, at most 64 KiB; `nil` when it does not exist (yet) or is empty.
    static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = fread(&buffer, 1, buffer.count, file)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Every m= line's profile (the third field) replaced.
    static func replacingProfile(in text: String, with profile: String) -> String {
        // "\r\n" is one Character in Swift: split on either newline character, write CRLF (RFC 8866 §5).
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        for index in lines.indices where lines[index].hasPrefix("m=") {
            var fields = lines[index].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 3 else { continue }
            fields[2] = profile
            lines[index] = fields.joined(separator: " ")
        }
        return lines.joined(separator: "\r\n")
    }

    /// With `--webrtc`, the peer's ICE parameters and candidates, its fingerprints and its setup role (from
    /// the media section, else the session level).
    func readSecurity(of description: SessionDescription, weOffered: Bool) throws(SDPEndpointFailure) {
        guard options.isWebRTC, let media = description.media.first else { return }
        var ice = ICESDPAttributes()
        for attribute in description.attributes + media.attributes {
            _ = try? ice.parse(name: attribute.name, value: attribute.value)
        }
        guard let remoteCredentials = ice.credentials else {
            throw SDPEndpointFailure(reason: "the peer's SDP has no ICE credentials")
        }
        let fingerprints = ((try? media.fingerprints) ?? []) + ((try? description.fingerprints) ?? [])
        guard !fingerprints.isEmpty else { throw SDPEndpointFailure(reason: "the peer's SDP has no fingerprint") }
        let peerSetup = (try? media.setup) ?? (try? description.setup) ?? .actpass
        let role: DTLSRole
        if weOffered {
            // We offered actpass: the answerer's active makes us the server, its passive the client.
            role = peerSetup == .passive ? .client : .server
        } else {
            role = peerSetup == .active ? .server : .client
        }
        security = RemoteSecurity(
            credentials: remoteCredentials, isLite: ice.isLite, candidates: ice.candidates,
            fingerprints: fingerprints, role: role)
    }
}

/// What the peer's SDP says for ICE and DTLS.
struct RemoteSecurity {
    var credentials: ICECredentials
    var isLite: Bool
    var candidates: [ICECandidate]
    var fingerprints: [Fingerprint]
    var role: DTLSRole
}
