import SDP
import SIPMessage

/// DTLS-SRTP in calls (RFC 5763): the app hears `connected` once the keys are in force, and a failed
/// handshake (a fingerprint mismatch, a timeout, a refusal) ends the call with a typed reason.
extension CallCoordinator {
    /// The stream events of session `key`'s DTLS.
    func dtlsEvents(_ key: SessionKey, into events: inout MediaStreamEvents) {
        let engine = self.engine
        events.secured = { [weak self] suite in engine.execute { [weak self] in self?.mediaSecured(key, suite) } }
        events.securityFailed = { [weak self] failure in
            engine.execute { [weak self] in self?.mediaSecurityFailed(key, failure) }
        }
    }

    /// Whether the call's `connected` event waits for DTLS keys: it negotiated DTLS and has none yet.
    func holdsConnectForDTLS(_ record: CallRecord) -> Bool {
        guard record.call.srtpKeying == .dtls, record.call.srtpSuite == nil else { return false }
        record.waitsForDTLS = true
        return true
    }

    private func mediaSecured(_ key: SessionKey, _ suite: CryptoSuite) {
        guard let record = table[session: key], record.state != .ended else { return }
        let secured = SRTPSuite(suite)
        let changed = record.call.srtpSuite != secured
        record.call.srtpSuite = secured
        record.call.srtpKeying = .dtls
        logger.debug("DTLS-SRTP keys in force", metadata: ["call": "\(record.uuid)", "suite": "\(suite)"])
        if record.waitsForDTLS {
            record.waitsForDTLS = false
            if !holdsConnectForICE(record) { finishConnecting(record) }
        } else if changed, record.call.connectedAt != nil {
            emit(.updated(record.call, CallUpdate()))
        }
    }

    private func mediaSecurityFailed(_ key: SessionKey, _ failure: MediaSecurityFailure) {
        guard let record = table[session: key], record.state != .ended, record.state != .ending else { return }
        logger.warning(
            "DTLS-SRTP failed: ending the call", metadata: ["call": "\(record.uuid)", "failure": "\(failure)"])
        record.mediaSecurityFailure = failure
        // The BYE says why (RFC 3326), for the peer's logs and CDRs: the media was not acceptable.
        end(
            record.uuid, rejectStatus: 488, reason: .mediaSecurityFailed,
            byeReason: Reason(protocol: "SIP", cause: 488, text: failure.reasonPhrase))
    }
}

extension SRTPSuite {
    /// The API's suite for an SDP crypto suite; `nil` for one the media engine does not run.
    init?(_ suite: CryptoSuite) {
        if suite.matches(.aesCM128HMACSHA1_80) {
            self = .aesCM80
        } else if suite.matches(.aesCM128HMACSHA1_32) {
            self = .aesCM32
        } else if suite.matches(.aeadAES128GCM) {
            self = .aesGCM128
        } else {
            return nil
        }
    }
}
