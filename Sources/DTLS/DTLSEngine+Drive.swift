import COpenSSL
public import Media
public import SDP

extension DTLSEngine {
    /// Starts the handshake: a client sends its ClientHello, a server waits for one. Arms the handshake
    /// deadline.
    /// - Parameter now: the current instant.
    /// - Returns: what to send (the client's first flight).
    public func start(at now: MediaInstant) -> [DTLSAction] {
        guard case .idle = state else { return [] }
        state = .handshaking
        handshakeDeadline = now + configuration.handshakeTimeout
        return drive(at: now)
    }

    /// Takes one DTLS datagram from the peer (RFC 7983: first byte 20...63). A server that was not started
    /// starts now.
    /// - Parameters:
    ///   - datagram: the whole datagram.
    ///   - now: when it arrived.
    /// - Returns: what to send, and the outcome when the handshake completes or fails.
    /// - Throws: ``DTLSError`` with `.badRecord` for a datagram that is not whole DTLS records, or
    ///   `.notConnected` when the engine is idle (a client) or finished: the datagram is dropped and the
    ///   engine's state is unchanged.
    public func receive(_ datagram: [UInt8], at now: MediaInstant) throws(DTLSError) -> [DTLSAction] {
        if let fault = DTLSRecordLayer.fault(in: datagram) {
            throw DTLSError(.badRecord, "dropped \(fault)")
        }
        var actions: [DTLSAction] = []
        switch state {
        case .idle:
            guard configuration.role == .server else {
                throw DTLSError(.notConnected, "a DTLS datagram before the client started")
            }
            actions = start(at: now)
        case .failed, .closed:
            throw DTLSError(.notConnected, "a DTLS datagram after the association ended")
        case .handshaking, .awaitingFingerprint, .connected:
            break
        }
        // One datagram at a time: what a previous one left unread (junk after its records) is discarded.
        _ = sb_BIO_reset(input)
        let written = datagram.withUnsafeBytes { BIO_write(input, $0.baseAddress, Int32($0.count)) }
        guard written == Int32(datagram.count) else {
            ERR_clear_error()
            return actions + fail(DTLSError(.libraryFailure, "BIO_write took \(written) of \(datagram.count) bytes"))
        }
        return actions + drive(at: now)
    }

    /// Runs the timers due at `now`: a retransmission of the last flight, or the end of the handshake.
    /// - Parameter now: the current instant.
    /// - Returns: what to send (a retransmitted flight) or the failure.
    public func advance(to now: MediaInstant) -> [DTLSAction] {
        switch state {
        case .handshaking, .awaitingFingerprint: break
        case .idle, .connected, .failed, .closed: return []
        }
        if let deadline = handshakeDeadline, now >= deadline {
            return fail(DTLSError(.handshakeTimeout, "no DTLS association within \(configuration.handshakeTimeout)"))
        }
        guard case .handshaking = state, let deadline = retransmissionDeadline, now >= deadline else { return [] }
        let retransmitted = sb_DTLSv1_handle_timeout(ssl)
        if retransmitted < 0 {
            return flush() + fail(DTLSError(.handshakeTimeout, "OpenSSL gave up retransmitting the last flight"))
        }
        if retransmitted == 0 {
            // OpenSSL's wall clock says the timer is not due yet: ask again when it says it will be.
            retransmissionDeadline = now + openSSLTimeLeft()
        }
        updateRetransmissionDeadline(at: now)
        return flush()
    }

    /// Gives the peer's fingerprints once its SDP arrived (RFC 5763 §5), and checks the certificate already
    /// presented if the handshake got that far.
    /// - Parameters:
    ///   - fingerprints: the `a=fingerprint` values of the peer's SDP.
    ///   - now: the current instant.
    /// - Returns: `.connected` with the keys, or `.failed` with `.fingerprintMismatch`, when the handshake had
    ///   completed; nothing otherwise.
    public func setRemoteFingerprints(_ fingerprints: [Fingerprint], at now: MediaInstant) -> [DTLSAction] {
        callbacks.remoteFingerprints = fingerprints
        guard case .awaitingFingerprint = state else { return [] }
        return verifyHeldCertificate()
    }

    /// Closes the association with a close_notify alert.
    /// - Returns: the close_notify to send.
    public func close() -> [DTLSAction] {
        switch state {
        case .handshaking, .awaitingFingerprint, .connected: break
        case .idle, .failed, .closed: return []
        }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        state = .closed
        return flush()
    }

    // MARK: Driving OpenSSL

    func drive(at now: MediaInstant) -> [DTLSAction] {
        switch state {
        case .handshaking: return handshake(at: now)
        case .awaitingFingerprint, .connected: return readRecords()
        case .idle, .failed, .closed: return []
        }
    }

    private func handshake(at now: MediaInstant) -> [DTLSAction] {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            let sent = flush() + handshakeCompleted()
            switch state {
            case .awaitingFingerprint, .connected: return sent + readRecords()
            case .idle, .handshaking, .failed, .closed: return sent
            }
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
            updateRetransmissionDeadline(at: now)
            return flush()
        }
        let sent = flush()
        if error == SSL_ERROR_ZERO_RETURN {
            ERR_clear_error()
            return sent + fail(DTLSError(.closed, "the peer closed the association during the handshake"))
        }
        return sent + fail(handshakeFailure())
    }

    /// Reads what arrived after the handshake: alerts, close_notify, retransmitted flights (OpenSSL answers
    /// those itself); application data is not used by DTLS-SRTP and is dropped.
    private func readRecords() -> [DTLSAction] {
        var scratch = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<64 {
            var count = 0
            let ok = scratch.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
            if ok == 1 { continue }
            let error = SSL_get_error(ssl, 0)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { break }
            let sent = flush()
            if error == SSL_ERROR_ZERO_RETURN {
                ERR_clear_error()
                state = .closed
                return sent + [.closed]
            }
            return sent + fail(handshakeFailure())
        }
        return flush()
    }

    private func handshakeCompleted() -> [DTLSAction] {
        retransmissionDeadline = nil
        guard let selected = SSL_get_selected_srtp_profile(ssl),
            let profile = DTLSSRTPProfile(identifier: UInt16(truncatingIfNeeded: selected.pointee.id)),
            configuration.srtpProfiles.contains(profile)
        else {
            _ = SSL_shutdown(ssl)
            let offered = configuration.srtpProfiles.map(\.name).joined(separator: ", ")
            return flush()
                + fail(DTLSError(.noCommonSRTPProfile, "no SRTP protection profile in common with \(offered)"))
        }
        var material = [UInt8](repeating: 0, count: 2 * (profile.keyLength + profile.saltLength))
        let label = "EXTRACTOR-dtls_srtp"  // RFC 5764 §4.2
        let exported = material.withUnsafeMutableBufferPointer { out in
            SSL_export_keying_material(ssl, out.baseAddress, out.count, label, label.utf8.count, nil, 0, 0)
        }
        guard exported == 1,
            let keys = DTLSSRTPKeys(profile: profile, keyingMaterial: material, role: configuration.role)
        else {
            ERR_clear_error()
            return fail(DTLSError(.libraryFailure, "SSL_export_keying_material failed"))
        }
        for i in material.indices { material[i] = 0 }
        pendingKeys = keys
        if callbacks.isPeerVerified { return connect() }
        state = .awaitingFingerprint
        return callbacks.remoteFingerprints.isEmpty ? [] : verifyHeldCertificate()
    }

    private func verifyHeldCertificate() -> [DTLSAction] {
        guard let certificate = SSL_get0_peer_certificate(ssl) else {
            return fail(DTLSError(.handshakeFailed, "the peer presented no certificate"))
        }
        if let error = DTLSDigest.verify(certificate, against: callbacks.remoteFingerprints) {
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
            return flush() + fail(error)
        }
        callbacks.isPeerVerified = true
        return connect()
    }

    private func connect() -> [DTLSAction] {
        guard let pending = pendingKeys else { return [] }
        handshakeDeadline = nil
        keys = pending
        pendingKeys = nil
        state = .connected
        return [.connected(pending)]
    }

    func fail(_ error: DTLSError) -> [DTLSAction] {
        state = .failed(error)
        handshakeDeadline = nil
        retransmissionDeadline = nil
        pendingKeys = nil
        return [.failed(error)]
    }

    /// The typed error of a failed OpenSSL call: our fingerprint check, the peer's alert, or OpenSSL's reason.
    private func handshakeFailure() -> DTLSError {
        defer { ERR_clear_error() }
        if let error = callbacks.verificationError { return error }
        if let alert = callbacks.receivedAlert, alert.isFatal {
            return DTLSError(.alertReceived, "the peer sent a \(alert)", alert: alert)
        }
        let code = ERR_get_error()
        guard code != 0 else { return DTLSError(.handshakeFailed, "the DTLS handshake failed") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return DTLSError(.handshakeFailed, text)
    }

    // MARK: Output and timers

    /// What OpenSSL wrote, as datagrams of at most the configured size.
    func flush() -> [DTLSAction] {
        let pending = sb_BIO_pending(output)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32($0.count)) }
        guard read > 0 else { return [] }
        if Int(read) < bytes.count { bytes.removeLast(bytes.count - Int(read)) }
        let records = DTLSRecordLayer.records(in: bytes)
        return DTLSRecordLayer.pack(records, maximumSize: configuration.maximumDatagramSize).map { .send($0) }
    }

    /// Follows OpenSSL's retransmission timer: a new duration from our callback starts a new deadline; no
    /// timer running means no deadline.
    func updateRetransmissionDeadline(at now: MediaInstant) {
        if let restarted = callbacks.restartedTimeout {
            retransmissionDeadline = now + .microseconds(Int64(restarted))
            callbacks.restartedTimeout = nil
        }
        var seconds = 0
        var microseconds = 0
        if sb_DTLSv1_get_timeout(ssl, &seconds, &microseconds) == 0 {
            retransmissionDeadline = nil
        } else if retransmissionDeadline == nil {
            retransmissionDeadline = now + openSSLTimeLeft()
        }
    }

    /// The wall-clock time OpenSSL says is left on its timer, at least a millisecond.
    func openSSLTimeLeft() -> Duration {
        var seconds = 0
        var microseconds = 0
        guard sb_DTLSv1_get_timeout(ssl, &seconds, &microseconds) == 1 else { return .milliseconds(1) }
        return max(.seconds(seconds) + .microseconds(microseconds), .milliseconds(1))
    }
}
