import COpenSSL
import SDP

/// The slot in each `SSL` that points at its engine's ``DTLSCallbackState``.
let dtlsExDataIndex: Int32 = sb_SSL_get_ex_new_index()

/// What OpenSSL's callbacks read and write for one engine. The engine owns it and frees its `SSL` before it,
/// so a callback never sees it gone; everything runs on the engine's thread, inside an OpenSSL call.
final class DTLSCallbackState {
    /// The peer's fingerprints; empty until known.
    var remoteFingerprints: [Fingerprint]
    /// Set when the certificate did not match (the handshake then fails with it).
    var verificationError: DTLSError?
    /// Whether the peer's certificate matched its fingerprint during the handshake.
    var isPeerVerified = false
    /// The first and the longest retransmission timeout, in microseconds.
    let initialTimeout: UInt32
    let maximumTimeout: UInt32
    /// The duration OpenSSL last (re)started its retransmission timer with, until the engine reads it.
    var restartedTimeout: UInt32?
    /// The last alert the peer sent.
    var receivedAlert: DTLSAlert?

    init(remoteFingerprints: [Fingerprint], initialTimeout: UInt32, maximumTimeout: UInt32) {
        self.remoteFingerprints = remoteFingerprints
        self.initialTimeout = initialTimeout
        self.maximumTimeout = maximumTimeout
    }

    /// The state of the engine that owns `ssl`.
    static func of(_ ssl: OpaquePointer?) -> DTLSCallbackState? {
        guard let ssl, let pointer = SSL_get_ex_data(ssl, dtlsExDataIndex) else { return nil }
        return Unmanaged<DTLSCallbackState>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// Replaces OpenSSL's chain verification (RFC 5763 §5: no CA, self-signed is the norm): the presented
/// certificate must match the peer's `a=fingerprint`, or, while that is not known yet, is held for
/// ``DTLSEngine/setRemoteFingerprints(_:at:)`` to check.
let dtlsVerifyCertificate: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, _ in
    guard let store, let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let state = DTLSCallbackState.of(OpaquePointer(ssl)), let certificate = X509_STORE_CTX_get0_cert(store)
    else { return 0 }
    if state.remoteFingerprints.isEmpty { return 1 }
    if let error = DTLSDigest.verify(certificate, against: state.remoteFingerprints) {
        state.verificationError = error
        X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
        return 0
    }
    state.isPeerVerified = true
    return 1
}

/// OpenSSL's retransmission timer durations (`DTLS_set_timer_cb`): the configured first timeout for a new
/// flight, doubled on each retransmission up to the maximum (RFC 6347 §4.2.4.1). The engine reads the value to
/// report its own deadline.
let dtlsTimerDuration: @convention(c) (OpaquePointer?, UInt32) -> UInt32 = { ssl, previous in
    guard let state = DTLSCallbackState.of(ssl) else { return 1_000_000 }
    let doubled = previous > UInt32.max / 2 ? UInt32.max : previous * 2
    let next = previous == 0 ? state.initialTimeout : max(min(doubled, state.maximumTimeout), state.initialTimeout)
    state.restartedTimeout = next
    return next
}

/// Records the alerts the peer sends (`SSL_set_info_callback`).
let dtlsInfo: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = { ssl, type, value in
    let readAlert = Int32(SSL_CB_ALERT) | Int32(SSL_CB_READ)
    guard type & readAlert == readAlert, let state = DTLSCallbackState.of(ssl) else { return }
    let name = SSL_alert_desc_string_long(value).map { String(cString: $0) } ?? "unknown"
    state.receivedAlert = DTLSAlert(
        level: UInt8(truncatingIfNeeded: value >> 8), code: UInt8(truncatingIfNeeded: value), name: name)
}
