import COpenSSL
public import SDP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The certificate and private key a provider presents in every DTLS-SRTP handshake (RFC 5763 §5), with the
/// OpenSSL context all its engines share. Self-signed is the norm: peers check it against the `a=fingerprint`
/// of our SDP, not against a CA.
///
/// `@unchecked Sendable`: the certificate, key and `SSL_CTX` are set up in `init` and never changed after;
/// OpenSSL allows creating connections from one configured `SSL_CTX` on several threads at once. The
/// description names the fingerprint only, never the key.
public final class DTLSIdentity: @unchecked Sendable, CustomStringConvertible {
    /// The certificate's `sha-256` fingerprint, in the form of `a=fingerprint` (RFC 8122 §5).
    public let fingerprint: Fingerprint

    /// `X509 *`.
    let certificate: OpaquePointer
    /// `EVP_PKEY *`.
    let privateKey: OpaquePointer
    /// `SSL_CTX *`: DTLS 1.2 only, this certificate and key, peer certificates checked by fingerprint.
    let context: OpaquePointer

    /// Generates an ECDSA P-256 key and a self-signed certificate for it (random serial, SHA-256 signature).
    /// - Parameters:
    ///   - commonName: the subject and issuer CN, `switchboard` by default.
    ///   - notBefore: the start of validity in seconds since 1970; the wall clock less a day by default (for
    ///     peers whose clocks lag).
    ///   - lifetime: how long it is valid after `notBefore`, 30 days by default.
    /// - Throws: ``DTLSError`` with `.badIdentity` when OpenSSL cannot make it.
    public static func generate(
        commonName: String = "switchboard", notBefore: Int64? = nil, lifetime: Duration = .seconds(30 * 86_400)
    ) throws(DTLSError) -> DTLSIdentity {
        let start = notBefore ?? (Int64(time(nil)) - 86_400)
        let seconds = max(lifetime.components.seconds, 1)
        var certificate: OpaquePointer?
        var key: OpaquePointer?
        guard sb_dtls_self_signed(commonName, start, start + seconds, &certificate, &key) == 1, let certificate,
            let key
        else {
            ERR_clear_error()
            throw DTLSError(.badIdentity, "OpenSSL could not make a P-256 self-signed certificate")
        }
        return try DTLSIdentity(takingCertificate: certificate, privateKey: key)
    }

    /// Loads a certificate and its private key from PEM text.
    /// - Parameters:
    ///   - certificatePEM: the certificate, PEM.
    ///   - privateKeyPEM: its private key, PEM (unencrypted).
    /// - Throws: ``DTLSError`` with `.badIdentity` when either does not parse or they do not belong together.
    public convenience init(certificatePEM: String, privateKeyPEM: String) throws(DTLSError) {
        guard let certificate = Self.withBIO(certificatePEM, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw DTLSError(.badIdentity, "the certificate PEM does not parse")
        }
        guard let key = Self.withBIO(privateKeyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            X509_free(certificate)
            throw DTLSError(.badIdentity, "the private key PEM does not parse")
        }
        try self.init(takingCertificate: certificate, privateKey: key)
    }

    /// Loads a certificate and its private key from PEM files.
    /// - Parameters:
    ///   - certificateFile: the certificate's path.
    ///   - privateKeyFile: the private key's path.
    /// - Throws: ``DTLSError`` with `.badIdentity` when a file cannot be read or parsed.
    public convenience init(certificateFile: String, privateKeyFile: String) throws(DTLSError) {
        guard let certificate = Self.readFile(certificateFile), let key = Self.readFile(privateKeyFile) else {
            throw DTLSError(.badIdentity, "cannot read \(certificateFile) or \(privateKeyFile)")
        }
        try self.init(certificatePEM: certificate, privateKeyPEM: key)
    }

    /// Takes ownership of `certificate` and `privateKey` (freed here on failure).
    private init(takingCertificate certificate: OpaquePointer, privateKey: OpaquePointer) throws(DTLSError) {
        guard let fingerprint = DTLSDigest.fingerprint(of: certificate, hashFunction: "sha-256") else {
            X509_free(certificate)
            EVP_PKEY_free(privateKey)
            throw DTLSError(.badIdentity, "cannot digest the certificate")
        }
        guard let context = DTLSIdentity.makeContext(certificate: certificate, privateKey: privateKey) else {
            ERR_clear_error()
            X509_free(certificate)
            EVP_PKEY_free(privateKey)
            throw DTLSError(.badIdentity, "the certificate and key do not make a DTLS context (do they match?)")
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.context = context
        self.fingerprint = fingerprint
    }

    deinit {
        SSL_CTX_free(context)
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The certificate's fingerprint with another hash function (`sha-1`, `sha-224`, `sha-384`, `sha-512`).
    /// - Returns: `nil` for a hash function the engine does not support.
    public func fingerprint(hashFunction: String) -> Fingerprint? {
        DTLSDigest.fingerprint(of: certificate, hashFunction: hashFunction)
    }

    /// The certificate, PEM.
    public var certificatePEM: String { Self.write { PEM_write_bio_X509($0, certificate) } ?? "" }

    /// The private key, PEM (unencrypted): for storing a generated identity; never log it.
    public var privateKeyPEM: String {
        Self.write { PEM_write_bio_PrivateKey($0, privateKey, nil, nil, 0, nil, nil) } ?? ""
    }

    public var description: String { "DTLSIdentity(\(fingerprint.attributeValue))" }

    // MARK: OpenSSL

    private static func makeContext(certificate: OpaquePointer, privateKey: OpaquePointer) -> OpaquePointer? {
        guard let method = DTLS_method(), let context = SSL_CTX_new(method) else { return nil }
        let verify = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
        guard sb_SSL_CTX_set_min_proto_version(context, sb_DTLS1_2_VERSION) == 1,
            sb_SSL_CTX_set_max_proto_version(context, sb_DTLS1_2_VERSION) == 1,
            SSL_CTX_use_certificate(context, certificate) == 1, SSL_CTX_use_PrivateKey(context, privateKey) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            SSL_CTX_free(context)
            return nil
        }
        _ = SSL_CTX_set_options(
            context, sb_SSL_OP_NO_TICKET | sb_SSL_OP_NO_RENEGOTIATION | sb_SSL_OP_NO_COMPRESSION)
        _ = sb_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        SSL_CTX_set_verify(context, verify, nil)
        // The whole chain check is replaced: no CA, no validity dates (self-signed is the norm); the
        // fingerprint from the peer's SDP decides (RFC 5763 §5).
        SSL_CTX_set_cert_verify_callback(context, dtlsVerifyCertificate, nil)
        return context
    }

    /// Reads an object from PEM text through a memory BIO.
    private static func withBIO(_ pem: String, _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        var bytes = Array(pem.utf8)
        guard bytes.count < Int(Int32.max) else { return nil }
        let object: OpaquePointer? = bytes.withUnsafeMutableBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
        if object == nil { ERR_clear_error() }
        return object
    }

    /// Writes PEM into a memory BIO and returns it as text.
    private static func write(_ body: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else {
            ERR_clear_error()
            return nil
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = sb_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
