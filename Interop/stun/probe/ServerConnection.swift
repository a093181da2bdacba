import COpenSSL
import Glibc

/// The probe's connection to the TURN server: a connected UDP socket, a TCP stream, or TLS over TCP with the
/// server's certificate verified against a CA file and its IP address.
final class ServerConnection {
    enum Kind: String {
        case udp, tcp, tls
    }

    let kind: Kind
    let fd: Int32
    private var context: OpaquePointer?
    private var ssl: OpaquePointer?

    var isStream: Bool { kind != .udp }

    /// Connects; prints why and returns nil on failure.
    init?(kind: Kind, host: String, port: UInt16, caFile: String?) {
        let type = kind == .udp ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
        guard let fd = connectedSocket(host: host, port: port, type: type) else {
            print("cannot connect \(kind) to \(host):\(port)")
            return nil
        }
        self.kind = kind
        self.fd = fd
        guard kind == .tls else { return }
        guard let caFile, handshake(host: host, caFile: caFile) else {
            print("TLS handshake with \(host):\(port) failed")
            printOpenSSLErrors()
            close(fd)
            return nil
        }
    }

    deinit {
        if let ssl {
            SSL_shutdown(ssl)
            SSL_free(ssl)
        }
        if let context { SSL_CTX_free(context) }
        close(fd)
    }

    /// A TLS 1.2+ client handshake that checks the chain against `caFile` and the certificate against the IP
    /// address `host`.
    private func handshake(host: String, caFile: String) -> Bool {
        guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else { return false }
        self.context = context
        _ = sb_SSL_CTX_set_min_proto_version(context, sb_TLS1_2_VERSION)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1, let ssl = SSL_new(context) else {
            return false
        }
        self.ssl = ssl
        guard let parameters = SSL_get0_param(ssl), X509_VERIFY_PARAM_set1_ip_asc(parameters, host) == 1 else {
            return false
        }
        guard SSL_set_fd(ssl, fd) == 1, SSL_connect(ssl) == 1 else { return false }
        return SSL_get_verify_result(ssl) == X509_V_OK
    }

    /// Prints and clears OpenSSL's error queue.
    private func printOpenSSLErrors() {
        var code = ERR_get_error()
        while code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            print("openssl: \(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
            code = ERR_get_error()
        }
        if let ssl { print("openssl: verify result \(SSL_get_verify_result(ssl))") }
    }

    /// Whether bytes are already decrypted and waiting, so that poll would not see them.
    var hasPending: Bool { ssl.map { SSL_pending($0) > 0 } ?? false }

    /// Sends one datagram, or writes all the bytes to the stream.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer -> Int in
                if let ssl { return Int(SSL_write(ssl, buffer.baseAddress, Int32(buffer.count))) }
                return send(fd, buffer.baseAddress, buffer.count, 0)
            }
            guard written > 0 else { return }
            offset += written
            if kind == .udp { return }
        }
    }

    /// One datagram, or what one read of the stream returned; nil at end of stream or on an error.
    func read() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { buffer -> Int in
            if let ssl { return Int(SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))) }
            return recv(fd, buffer.baseAddress, buffer.count, 0)
        }
        return count > 0 ? Array(buffer[0..<count]) : nil
    }
}
