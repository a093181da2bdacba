public import SDP

/// The SRTP master keys and salts of a DTLS-SRTP association (RFC 5764 §4.2), each as the key followed by the
/// salt: what `SRTPContext(suite:masterKeySalt:direction:)` takes for each direction.
///
/// The description names the profile only: keys never appear in logs.
public struct DTLSSRTPKeys: Hashable, Sendable, CustomStringConvertible {
    /// The negotiated protection profile.
    public var profile: DTLSSRTPProfile
    /// Our write key and salt: protects what we send (the outbound context).
    public var localMasterKeySalt: [UInt8]
    /// The peer's write key and salt: unprotects what we receive (the inbound context).
    public var remoteMasterKeySalt: [UInt8]

    /// - Parameters:
    ///   - profile: the profile.
    ///   - localMasterKeySalt: our write key and salt.
    ///   - remoteMasterKeySalt: the peer's write key and salt.
    public init(profile: DTLSSRTPProfile, localMasterKeySalt: [UInt8], remoteMasterKeySalt: [UInt8]) {
        self.profile = profile
        self.localMasterKeySalt = localMasterKeySalt
        self.remoteMasterKeySalt = remoteMasterKeySalt
    }

    /// The SRTP crypto suite both directions use.
    public var cryptoSuite: CryptoSuite { profile.cryptoSuite }

    /// Splits RFC 5764 §4.2's keying material, `client_write_key | server_write_key | client_write_salt |
    /// server_write_salt`, into this side's and the peer's key and salt.
    /// - Returns: `nil` when the material is not `2 * (key + salt)` bytes.
    public init?(profile: DTLSSRTPProfile, keyingMaterial: [UInt8], role: DTLSRole) {
        let key = profile.keyLength
        let salt = profile.saltLength
        guard keyingMaterial.count == 2 * (key + salt) else { return nil }
        let clientKey = keyingMaterial[0..<key]
        let serverKey = keyingMaterial[key..<(2 * key)]
        let clientSalt = keyingMaterial[(2 * key)..<(2 * key + salt)]
        let serverSalt = keyingMaterial[(2 * key + salt)...]
        let client = Array(clientKey + clientSalt)
        let server = Array(serverKey + serverSalt)
        self.init(
            profile: profile, localMasterKeySalt: role == .client ? client : server,
            remoteMasterKeySalt: role == .client ? server : client)
    }

    public var description: String { "DTLS-SRTP keys (\(profile), redacted)" }
}
