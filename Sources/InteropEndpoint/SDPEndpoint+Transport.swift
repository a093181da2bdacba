import CSystem
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

/// The transport half: ICE, then DTLS on the selected pair, then media with the keys DTLS made.
extension SDPEndpoint {
    /// Without `--webrtc` media starts at once toward the SDP's address; with it ICE starts (the offerer
    /// controls, RFC 8445 §6.1.1) and DTLS waits for a selected pair.
    func startTransport() throws(SDPEndpointFailure) {
        guard options.isWebRTC else {
            guard let address = negotiated?.remoteRTPAddress,
                let destination = UDPPort.address(address.host, address.port)
            else { throw SDPEndpointFailure(reason: "the peer's SDP gives no IPv4 address to send to") }
            try startMedia(to: destination)
            return
        }
        guard let remoteICE, let dtlsParameters = negotiated?.dtls, let credentials, let identity else { return }
        // RFC 5763 §5: active is the DTLS client.
        let role: DTLSRole = dtlsParameters.setup == .active ? .client : .server
        let now = STUNInstant(nanoseconds: Self.monotonicNanoseconds())
        var agent = ICEAgent(
            configuration: ICEAgentConfiguration(initialRole: options.role == .offer ? .controlling : .controlled),
            credentials: credentials, generator: random)
        var actions: [ICEAgentAction] = []
        do throws(ICEAgentError) { actions += try agent.addLocalCandidate(localCandidate, at: now) } catch {
            throw SDPEndpointFailure(reason: "ICE: \(error)")
        }
        actions += agent.setRemoteParameters(credentials: remoteICE.credentials, isLite: remoteICE.isLite, at: now)
        var added = 0
        for candidate in remoteICE.candidates
        where candidate.component == 1 && candidate.address.address.bytes.count == 4 {
            // Candidates this IPv4 socket cannot use (TCP, IPv6) are skipped.
            if let more = try? agent.addRemoteCandidate(candidate, at: now) {
                actions += more
                added += 1
            }
        }
        guard added > 0 else { throw SDPEndpointFailure(reason: "the peer's SDP has no IPv4 UDP candidate") }
        ice = agent
        let configuration = DTLSEngine.Configuration(
            role: role, identity: identity, remoteFingerprints: dtlsParameters.remoteFingerprints)
        do throws(DTLSError) { dtls = try DTLSEngine(configuration: configuration) } catch {
            throw SDPEndpointFailure(reason: "DTLS: \(error)")
        }
        emit("ice started role=\(agent.role) remote-candidates=\(added) dtls-role=\(role)")
        try perform(actions)
    }

    /// Carries out ICE's actions; a selected pair starts DTLS (the client sends its ClientHello).
    func perform(_ actions: [ICEAgentAction]) throws(SDPEndpointFailure) {
        for action in actions {
            switch action {
            case .send(let bytes, _, let to): socket.send(bytes, to: to)
            case .armTimer(let at): iceDeadline = at
            case .event(.selected(let pair)):
                let first = remote == nil
                remote = pair.remote.address
                emit("ice selected \(pair.local.address) -> \(pair.remote.address)")
                if first, let dtls { try perform(dtls.start(at: Self.now())) }
            case .event(.failed): throw SDPEndpointFailure(reason: "ICE failed")
            case .event(.consentLost): throw SDPEndpointFailure(reason: "ICE consent lost")
            case .event: break
            }
        }
    }

    /// Carries out DTLS's actions; keys start the media, a failure ends the run with its reason.
    func perform(_ actions: [DTLSAction]) throws(SDPEndpointFailure) {
        for action in actions {
            switch action {
            case .send(let bytes):
                if let peer = remote ?? dtlsPeer { socket.send(bytes, to: peer) }
            case .connected(let keys):
                let now = Self.now()
                do throws(MediaSessionError) {
                    try session.setPathKeys(
                        MediaPathKeys(
                            suite: keys.cryptoSuite, localMasterKeySalt: keys.localMasterKeySalt,
                            remoteMasterKeySalt: keys.remoteMasterKeySalt), at: now)
                } catch {
                    throw SDPEndpointFailure(reason: "SRTP: \(error)")
                }
                suiteName = Self.suiteName(keys.profile)
                emit("dtls connected profile=\(keys.profile)")
                guard let destination = remote ?? dtlsPeer else {
                    throw SDPEndpointFailure(reason: "DTLS up without a peer address")
                }
                try startMedia(to: destination)
            case .failed(let error):
                throw SDPEndpointFailure(
                    reason: error.code == .fingerprintMismatch ? "DTLS fingerprint mismatch" : "DTLS \(error)")
            case .closed:
                if mediaEnd == nil { throw SDPEndpointFailure(reason: "DTLS closed by the peer") }
            }
        }
    }

    /// The suite's name as the CLI's connected line writes it.
    static func suiteName(_ profile: DTLSSRTPProfile) -> String {
        switch profile.identifier {
        case DTLSSRTPProfile.aes128CMSHA1_80.identifier: "aes-cm-80"
        case DTLSSRTPProfile.aes128CMSHA1_32.identifier: "aes-cm-32"
        case DTLSSRTPProfile.aeadAES128GCM.identifier: "aes-gcm-128"
        default: profile.name
        }
    }

    /// Configures the media session for the negotiated codec toward `destination`, with the tone and the
    /// recorder, and starts the media clock.
    func startMedia(to destination: STUNTransportAddress) throws(SDPEndpointFailure) {
        guard mediaEnd == nil, let negotiated else { return }
        let now = Self.now()
        do throws(MediaSessionError) {
            // Without rtcp-mux RTCP goes to the peer's RTCP address (from this one socket: the peer's latch or
            // its RTCP port takes it); with it, to the media address.
            let rtcp =
                negotiated.isRTCPMuxed
                ? destination : negotiated.remoteRTCPAddress.flatMap { UDPPort.address($0.host, $0.port) }
            try session.configure(negotiated, rtpAddress: destination, rtcpAddress: rtcp ?? destination, at: now)
        } catch {
            throw SDPEndpointFailure(reason: "media: \(error)")
        }
        let source: (any AudioSource)? = options.toneHz.map {
            ToneSource(frequency: $0, format: session.sendFormat ?? .narrowband)
        }
        if let path = options.record {
            do throws(AudioIOError) {
                recorder = try WAVFileWriter(path: path, format: session.receiveFormat ?? .narrowband)
            } catch {
                throw SDPEndpointFailure(reason: "cannot record to \(path): \(error)")
            }
        }
        audio = AudioDevicePort(source: source, sink: recorder)
        session.setActivity(.active)
        mediaEnd = now.nanoseconds + Int64(options.duration * 1e9)
        emit(
            "connected srtp=\(negotiated.isSecure ? "yes" : "no") keying=\(negotiated.keying?.rawValue ?? "none")"
                + " suite=\(suiteName)"
                + " codec=\(negotiated.codec.encodingName) remote=\(destination)")
        session.advance(to: now, audio: &audio)
        flush()
    }
}

extension UDPPort {
    /// An IPv4 address in dotted form with a port; `nil` for anything else (a name, IPv6).
    static func address(_ host: String, _ port: UInt16) -> STUNTransportAddress? {
        var binary = in_addr()
        guard inet_pton(AF_INET, host, &binary) == 1 else { return nil }
        guard let ip = STUNIPAddress(bytes: withUnsafeBytes(of: binary) { Array($0) }) else { return nil }
        return STUNTransportAddress(address: ip, port: port)
    }
}
