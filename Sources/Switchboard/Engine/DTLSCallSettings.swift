import DTLS
import SDP

/// The provider's DTLS-SRTP identity and the handshake settings every call's association runs with.
struct DTLSCallSettings: Sendable {
    /// The certificate and key every call presents (one per provider, RFC 5763 §5).
    let identity: DTLSIdentity
    /// How long a handshake may take (`CallProviderConfiguration.dtlsHandshakeTimeout`).
    let handshakeTimeout: Duration
    /// The `use_srtp` profiles in preference order (`CallProviderConfiguration.srtpSuites`).
    var srtpProfiles = DTLSSRTPProfile.defaultPreference

    /// The fingerprints our SDP names: `sha-256` (RFC 8122 §5).
    var fingerprints: [Fingerprint] { [identity.fingerprint] }

    /// The settings a configuration asks for: the supplied certificate, else a generated one; `nil` when
    /// calls never use SRTP (neither `srtp`, an account's, nor the WebRTC profile), so no certificate is made.
    /// - Throws: `CallError.configuration` when the supplied files do not load or OpenSSL cannot make one.
    static func load(_ configuration: CallProviderConfiguration) throws(CallError) -> DTLSCallSettings? {
        let usesSRTP =
            configuration.srtp != .off || configuration.usesWebRTCProfile
            || configuration.accounts.contains { ($0.srtp ?? .off) != .off }
        guard usesSRTP || configuration.dtlsCertificateFile != nil else { return nil }
        let files = (configuration.dtlsCertificateFile, configuration.dtlsPrivateKeyFile)
        if (files.0 == nil) != (files.1 == nil) {
            throw .configuration("dtlsCertificateFile and dtlsPrivateKeyFile go together")
        }
        let identity: DTLSIdentity
        do throws(DTLSError) {
            if let certificate = files.0, let key = files.1 {
                identity = try DTLSIdentity(certificateFile: certificate, privateKeyFile: key)
            } else {
                identity = try DTLSIdentity.generate()
            }
        } catch {
            throw .configuration("DTLS certificate: \(error)")
        }
        var settings = DTLSCallSettings(identity: identity, handshakeTimeout: configuration.dtlsHandshakeTimeout)
        if let suites = configuration.srtpSuites { settings.srtpProfiles = suites.map(\.dtlsProfile) }
        return settings
    }

    /// An engine's configuration for one association.
    func engineConfiguration(role: DTLSRole, remoteFingerprints: [Fingerprint]) -> DTLSEngine.Configuration {
        var configuration = DTLSEngine.Configuration(
            role: role, identity: identity, remoteFingerprints: remoteFingerprints, srtpProfiles: srtpProfiles)
        configuration.handshakeTimeout = handshakeTimeout
        return configuration
    }
}
