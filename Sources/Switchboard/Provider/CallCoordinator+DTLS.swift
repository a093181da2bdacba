import Foundation
import SDP
import SIPMessage
import SIPUserAgent

/// DTLS-SRTP in calls (RFC 5763): the app hears `connected` once the keys are in force, and a failed
/// handshake (a fingerprint mismatch, a timeout, a refusal) ends the call with a typed reason.
extension CallCoordinator {
    /// Whether an outgoing call whose WebRTC offer was refused (488, 606) goes out again with a plain one
    /// (`RTP/AVP`, SDES or opportunistic DTLS as configured): the policy that lets `--webrtc` reach a plain
    /// endpoint. Once per call.
    func retriesWithoutWebRTC(_ record: CallRecord) -> Bool {
        guard configuration.usesWebRTCProfile, record.routing.offersWebRTCProfile, record.call.direction == .outgoing,
            record.call.connectedAt == nil, record.state != .ending, record.routing.target != nil
        else { return false }
        record.routing.offersWebRTCProfile = false
        logger.info("WebRTC offer refused: offering plain RTP", metadata: ["call": "\(record.uuid)"])
        return true
    }

    /// Whether the call's `connected` event waits for DTLS keys: it negotiated DTLS, has a stream to run the
    /// handshake on (not so for signalling-only media) and no keys yet.
    func holdsConnectForDTLS(_ record: CallRecord) -> Bool {
        guard record.call.srtpKeying == .dtls, record.call.srtpSuite == nil, let key = record.session,
            media.hasStream(key)
        else { return false }
        record.waitsForDTLS = true
        return true
    }

    /// Asks for a new DTLS association on a connected call (RFC 8842 §5.2): a re-offer with a new tls-id; the
    /// error when the call cannot make one now (nothing is sent then).
    func renewDTLSAssociation(_ uuid: UUID) -> CallError? {
        guard let record = table[uuid] else { return .unknownCallUUID }
        guard record.state == .connected, let key = record.session else {
            return .invalidAction("the call is not connected")
        }
        guard let refusal = sessions.renewDTLSAssociation(key) else {
            logger.debug("Asking for a new DTLS association", metadata: ["call": "\(uuid)"])
            return nil
        }
        return .invalidAction("no new DTLS association: \(refusal)")
    }

    func mediaSecured(_ key: SessionKey, _ suite: CryptoSuite) {
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

    func mediaSecurityFailed(_ key: SessionKey, _ failure: MediaSecurityFailure) {
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
