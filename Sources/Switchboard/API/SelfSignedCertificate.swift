import COpenSSL
import Foundation

/// A throwaway TLS identity: a self-signed certificate (EC P-256, valid one day) and its key, written as
/// PEM files. For demos and tests only: a peer trusts it by naming the certificate file as its CA
/// (`CallProviderConfiguration.TLS.trustedCAFile`), never by turning verification off.
public struct SelfSignedCertificate: Sendable {
    /// The certificate (PEM); also the CA file a peer trusts.
    public let certificateFile: String
    /// The private key (PEM).
    public let privateKeyFile: String

    /// Generates a certificate for `host` (an IP address becomes an IP subjectAltName, a name a DNS one)
    /// in `directory`.
    /// - Throws: `CallError.configuration` when OpenSSL fails or the files cannot be written.
    public init(host: String, directory: String) throws(CallError) {
        let isAddress =
            host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
        let san = (isAddress ? "IP:" : "DNS:") + host
        certificateFile = (directory as NSString).appendingPathComponent("switchboard-\(host)-cert.pem")
        privateKeyFile = (directory as NSString).appendingPathComponent("switchboard-\(host)-key.pem")
        guard sb_write_self_signed(host, san, certificateFile, privateKeyFile) == 1 else {
            throw .configuration("cannot create a self-signed certificate for \(host) in \(directory)")
        }
        chmod(privateKeyFile, 0o600)
    }
}
