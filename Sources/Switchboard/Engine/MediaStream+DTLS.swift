import DTLS
import Media
import SDP
import SIPTransport

/// A stream's DTLS-SRTP (RFC 5763, RFC 5764) on the media loop: the demultiplexer's DTLS records (RFC 7983) go
/// to the association's engine, its flights go to the peer (on ICE's selected pair when ICE is on), and its
/// keys to the session, which sends and takes nothing until then.
///
/// Timers: the engine's deadlines (retransmissions, the handshake's end) run on the media loop's timer, in
/// the driver's clock (virtual time in tests). What stays wall-clock is OpenSSL's own check that a
/// retransmission is due (`DTLSEngine` says how it is reconciled); a handshake without loss needs none.
extension MediaStream {
    /// Takes a negotiation's DTLS (before the session is configured): the association it names goes on with
    /// the peer's fingerprints; another (a new tls-id, a changed role) replaces it, and the session is
    /// unkeyed until the new one's keys come. Without DTLS an association in force ends.
    func negotiateDTLS(_ parameters: NegotiatedSession.DTLSParameters?) {
        guard let parameters, let settings = dtlsSettings else {
            if dtls != nil { endDTLS() }
            return
        }
        if let current = dtls, current.isNamed(by: parameters) {
            current.tlsIDs = (parameters.localTLSID, parameters.remoteTLSID)
            run(current, current.engine.setRemoteFingerprints(parameters.remoteFingerprints, at: clock.now()))
            return
        }
        if dtls != nil { endDTLS() }
        let role = DTLSAssociation.role(of: parameters)
        do throws(DTLSError) {
            let engine = try DTLSEngine(
                configuration: settings.engineConfiguration(
                    role: role, remoteFingerprints: parameters.remoteFingerprints))
            let association = DTLSAssociation(
                engine: engine, role: role, tlsIDs: (parameters.localTLSID, parameters.remoteTLSID))
            dtls = association
            let held = heldClientHellos
            heldClientHellos = []
            if role == .server {
                for (bytes, source) in held { receiveDTLS(bytes, from: source, into: association) }
            }
        } catch {
            events.securityFailed(MediaSecurityFailure(error))
        }
        installDTLSSeam()
    }

    /// Starts the association once there is a path: with ICE a selected or valid pair (RFC 8445 §12.1), else
    /// the peer's address.
    func startDTLSIfReady() {
        guard let association = dtls, !association.isStarted, !session.isClosed else { return }
        if let ice {
            guard ice.hasMediaRoute else { return }
        } else {
            guard session.rtpDestination != nil else { return }
        }
        association.isStarted = true
        run(association, association.engine.start(at: clock.now()))
    }

    /// The demultiplexer's DTLS datagrams, queued while the session is busy receiving: they go to the engine
    /// here, after `session.receive` returned (the engine's keys change the session). Only the RTP port's: the
    /// association is the RTP component's (RFC 5764 §4.1; with rtcp-mux the only one), and a handshake on the
    /// separate RTCP port (a peer without rtcp-mux, or a stranger) must not reach it. That second association
    /// is not run: SRTCP there uses the RTP association's keys.
    func installDTLSSeam() {
        guard session.seams.dtls == nil else { return }
        session.seams.dtls = { [weak self] bytes, source, port, _ in
            if port == .rtp { self?.pendingDTLS.append((bytes, source)) }
            return []
        }
    }

    /// Hands the queued DTLS datagrams to the association; a ClientHello before any negotiation starts a
    /// server (RFC 5763 §5: the offerer's peer may start before the answer arrives).
    func drainDTLS() {
        while !pendingDTLS.isEmpty {
            let (bytes, source) = pendingDTLS.removeFirst()
            guard let association = dtls ?? makeEarlyServer() else { continue }
            if association.isKeyed, Self.isClientHello(bytes) {
                // A new association's ClientHello before the re-offer's answer named it here: kept for it.
                if heldClientHellos.count < 4 { heldClientHellos.append((bytes, source)) }
                continue
            }
            receiveDTLS(bytes, from: source, into: association)
        }
    }

    private func receiveDTLS(_ bytes: [UInt8], from source: SocketAddress, into association: DTLSAssociation) {
        association.peer = source
        do throws(DTLSError) {
            let actions = try association.engine.receive(bytes, at: clock.now())
            association.isStarted = true
            run(association, actions)
        } catch {
            // A datagram that is not DTLS records, or that came before a client started: dropped.
        }
    }

    /// Whether a datagram starts with an epoch-0 handshake record holding a ClientHello (RFC 6347 §4.1, §4.2.2).
    static func isClientHello(_ bytes: [UInt8]) -> Bool {
        bytes.count > 13 && bytes[0] == 22 && bytes[3] == 0 && bytes[4] == 0 && bytes[13] == 1
    }

    /// A server for a ClientHello that came before this side's offer was answered.
    private func makeEarlyServer() -> DTLSAssociation? {
        guard let settings = dtlsSettings, !session.isClosed else { return nil }
        guard
            let engine = try? DTLSEngine(
                configuration: settings.engineConfiguration(role: .server, remoteFingerprints: []))
        else { return nil }
        let association = DTLSAssociation(engine: engine, role: .server, tlsIDs: nil)
        dtls = association
        return association
    }

    /// Carries out an engine's actions: flights out, keys to the session, failures to the signalling side.
    func run(_ association: DTLSAssociation, _ actions: [DTLSAction]) {
        for action in actions {
            switch action {
            case .send(let bytes): sendDTLS(bytes, for: association)
            case .connected(let keys):
                association.isKeyed = true
                let pathKeys = MediaPathKeys(
                    suite: keys.cryptoSuite, localMasterKeySalt: keys.localMasterKeySalt,
                    remoteMasterKeySalt: keys.remoteMasterKeySalt)
                do throws(MediaSessionError) {
                    try session.setPathKeys(pathKeys, at: clock.now())
                    events.secured(keys.cryptoSuite)
                } catch {
                    events.securityFailed(
                        MediaSecurityFailure(.handshakeFailed, detail: "SRTP contexts from DTLS keys: \(error)"))
                }
            case .failed(let error):
                guard association.tlsIDs != nil else {
                    // A server no negotiation adopted (a ClientHello to a call without DTLS, say): dropped
                    // quietly; the call does not depend on it.
                    if dtls === association { dtls = nil }
                    continue
                }
                events.securityFailed(MediaSecurityFailure(error))
            case .closed: break
            }
        }
        armDTLS(association)
        flush()
        arm()
    }

    /// One datagram of the engine's: on the selected pair with ICE, else to where the peer's DTLS came
    /// from, else to the peer's signalled address.
    private func sendDTLS(_ bytes: [UInt8], for association: DTLSAssociation) {
        guard let destination = association.peer ?? session.rtpDestination else { return }
        if let ice {
            ice.send(bytes, to: destination, from: .rtp)
        } else {
            _ = rtp.send(bytes, to: destination)
        }
    }

    private func armDTLS(_ association: DTLSAssociation) {
        guard let deadline = association.engine.nextDeadline else {
            if let timer = association.timer { loop.cancelTimer(timer.handle) }
            association.timer = nil
            return
        }
        if let timer = association.timer {
            guard timer.deadline != deadline else { return }
            loop.cancelTimer(timer.handle)
        }
        let handle = loop.scheduleTimer(after: max(.zero, deadline - clock.now())) {
            [weak self, weak association] in
            guard let self, let association, self.dtls === association else { return }
            association.timer = nil
            self.run(association, association.engine.advance(to: self.clock.now()))
        }
        association.timer = (handle, deadline)
    }

    /// Ends the association in force: close_notify out, its timer off, the session unkeyed.
    func endDTLS() {
        guard let association = dtls else { return }
        dtls = nil
        if let timer = association.timer { loop.cancelTimer(timer.handle) }
        association.timer = nil
        for case .send(let bytes) in association.engine.close() { sendDTLS(bytes, for: association) }
        try? session.setPathKeys(nil, at: clock.now())
    }
}
