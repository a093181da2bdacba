import COpenSSL

/// TLS settings: what to trust, what to present.
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM file of trusted CAs; `nil` uses the system store.
    public var trustedCAFile: String?
    /// Our certificate chain (PEM): required to accept TLS connections, optional for clients.
    public var certificateFile: String?
    /// The private key (PEM) for `certificateFile`.
    public var privateKeyFile: String?
    /// Verify the peer's certificate (always on for clients unless a test turns it off explicitly).
    public var verifiesPeer: Bool
    /// Whether a server asks clients for a certificate.
    public var requestsClientCertificate: Bool

    public init(
        trustedCAFile: String? = nil, certificateFile: String? = nil, privateKeyFile: String? = nil,
        verifiesPeer: Bool = true, requestsClientCertificate: Bool = false
    ) {
        self.trustedCAFile = trustedCAFile
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.verifiesPeer = verifiesPeer
        self.requestsClientCertificate = requestsClientCertificate
    }
}

/// An OpenSSL context (client or server side), TLS 1.2 minimum.
package final class TLSContext {
    let context: OpaquePointer
    let configuration: TLSConfiguration

    package init(configuration: TLSConfiguration, server: Bool) throws(TransportError) {
        guard let method = server ? TLS_server_method() : TLS_client_method(), let ctx = SSL_CTX_new(method) else {
            throw TransportError(.tlsConfiguration, "SSL_CTX_new failed")
        }
        context = ctx
        self.configuration = configuration
        _ = sb_SSL_CTX_set_min_proto_version(ctx, sb_TLS1_2_VERSION)
        _ = sb_SSL_CTX_set_mode(ctx, sb_SSL_MODE_ENABLE_PARTIAL_WRITE | sb_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER)
        _ = SSL_CTX_set_options(ctx, sb_SSL_OP_NO_COMPRESSION | sb_SSL_OP_NO_RENEGOTIATION)
        if let ca = configuration.trustedCAFile {
            guard SSL_CTX_load_verify_locations(ctx, ca, nil) == 1 else {
                throw TransportError(.tlsConfiguration, "cannot load CA file \(ca)")
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(ctx)
        }
        if let cert = configuration.certificateFile {
            guard SSL_CTX_use_certificate_chain_file(ctx, cert) == 1 else {
                throw TransportError(.tlsConfiguration, "cannot load certificate \(cert)")
            }
            guard let key = configuration.privateKeyFile,
                SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(ctx) == 1
            else {
                throw TransportError(.tlsConfiguration, "cannot load the private key for \(cert)")
            }
        } else if server {
            throw TransportError(.tlsConfiguration, "a TLS listener needs a certificate and key")
        }
        let verify =
            server
            ? (configuration.requestsClientCertificate ? SSL_VERIFY_PEER : SSL_VERIFY_NONE)
            : (configuration.verifiesPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE)
        SSL_CTX_set_verify(ctx, verify, nil)
    }

    deinit { SSL_CTX_free(context) }
}

/// One TLS connection over memory BIOs: the socket code feeds received bytes in and sends what comes out.
package final class TLSSession {
    private let ssl: OpaquePointer
    private let input: OpaquePointer  // network -> OpenSSL
    private let output: OpaquePointer  // OpenSSL -> network
    package private(set) var isHandshakeComplete = false
    let isServer: Bool

    /// A client session that verifies the server as `serverName` (a domain: SNI and host name check, RFC 5922)
    /// or, when the name is an IP literal or nil, the address's IP subjectAltName (no SNI).
    package init(context: TLSContext, serverName: String?, address: SocketAddress) throws(TransportError) {
        isServer = false
        guard let ssl = SSL_new(context.context), let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem())
        else { throw TransportError(.tlsConfiguration, "SSL_new failed") }
        self.ssl = ssl
        input = rbio
        output = wbio
        _ = sb_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        if context.configuration.verifiesPeer {
            let literal = serverName.flatMap { SocketAddress(ip: $0, port: 0) }
            if let name = serverName, literal == nil {
                _ = sb_SSL_set_tlsext_host_name(ssl, name)
                _ = SSL_set1_host(ssl, name)
            } else {
                let ip = literal?.host ?? address.host
                if let param = SSL_get0_param(ssl) { _ = X509_VERIFY_PARAM_set1_ip_asc(param, ip) }
            }
        }
        SSL_set_connect_state(ssl)
    }

    /// A server session.
    init(context: TLSContext) throws(TransportError) {
        isServer = true
        guard let ssl = SSL_new(context.context), let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem())
        else { throw TransportError(.tlsConfiguration, "SSL_new failed") }
        self.ssl = ssl
        input = rbio
        output = wbio
        _ = sb_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// Drives the handshake; true once it is complete. Throws a typed verification error on failure.
    package func handshake() throws(TransportError) -> Bool {
        if isHandshakeComplete { return true }
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            return true
        }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return false }
        throw failure()
    }

    private func failure() -> TransportError {
        let verify = SSL_get_verify_result(ssl)
        var detail = ""
        let code = ERR_get_error()
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            detail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
        switch Int32(verify) {
        case X509_V_OK:
            return TransportError(.handshakeFailed, detail.isEmpty ? "handshake failed" : detail)
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH, X509_V_ERR_EMAIL_MISMATCH:
            return TransportError(.nameMismatch, "the certificate does not name this server")
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return TransportError(.expiredCertificate, "the certificate is expired or not yet valid")
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
            return TransportError(.untrustedCertificate, "the certificate's issuer is not trusted")
        default:
            let text = X509_verify_cert_error_string(Int(verify)).map { String(cString: $0) } ?? "verify error"
            return TransportError(.handshakeFailed, text)
        }
    }

    /// Bytes received from the network.
    package func feed(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = BIO_write(input, bytes.baseAddress?.advanced(by: offset), Int32(bytes.count - offset))
            if written <= 0 { break }
            offset += Int(written)
        }
    }

    /// Decrypted application data available now (may be empty). Throws on a TLS error or close.
    package func readPlaintext(into buffer: inout [UInt8]) throws(TransportError) {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            var count = 0
            let ok = chunk.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
            if ok == 1 {
                buffer.append(contentsOf: chunk[0..<count])
                continue
            }
            let error = SSL_get_error(ssl, 0)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
            if error == SSL_ERROR_ZERO_RETURN { throw TransportError(.connectionClosed, "TLS close_notify") }
            throw failure()
        }
    }

    /// Encrypts application data.
    package func writePlaintext(_ bytes: [UInt8]) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            var written = 0
            let ok = bytes.withUnsafeBytes { raw in
                SSL_write_ex(ssl, raw.baseAddress?.advanced(by: offset), raw.count - offset, &written)
            }
            guard ok == 1 else { throw failure() }
            offset += written
        }
    }

    /// Ciphertext waiting to be sent.
    package func takeCiphertext() -> [UInt8] {
        let pending = sb_BIO_pending(output)
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let read = out.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32($0.count)) }
        if read <= 0 { return [] }
        if Int(read) < out.count { out.removeLast(out.count - Int(read)) }
        return out
    }
}
