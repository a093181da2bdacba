import COpenSSL
import SDP

/// Certificate fingerprints (RFC 8122 §5) and the rule that checks a peer's certificate against them.
enum DTLSDigest {
    /// The hash functions the engine computes, strongest first (RFC 8122 §5's textual names).
    static let supported = ["sha-512", "sha-384", "sha-256", "sha-224", "sha-1"]

    /// OpenSSL's digest for a textual name, ignoring case.
    static func digest(named name: String) -> OpaquePointer? {
        switch name.lowercased() {
        case "sha-1": EVP_sha1()
        case "sha-224": EVP_sha224()
        case "sha-256": EVP_sha256()
        case "sha-384": EVP_sha384()
        case "sha-512": EVP_sha512()
        default: nil
        }
    }

    /// The fingerprint of a certificate (its DER) with `hashFunction`, `nil` for an unsupported one.
    static func fingerprint(of certificate: OpaquePointer, hashFunction: String) -> Fingerprint? {
        guard let digest = digest(named: hashFunction) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, digest, &bytes, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Fingerprint(hashFunction: hashFunction.lowercased(), bytes: Array(bytes.prefix(Int(length))))
    }

    /// Checks `certificate` against the peer's `fingerprints`: those of the strongest supported hash function
    /// present are the ones that count, and one of them must match (RFC 8122 §5).
    /// - Returns: `nil` when it matches; the error naming the fault otherwise.
    static func verify(_ certificate: OpaquePointer, against fingerprints: [Fingerprint]) -> DTLSError? {
        guard
            let strongest = supported.first(where: { name in
                fingerprints.contains { $0.hashFunction.lowercased() == name }
            })
        else {
            let names = fingerprints.map(\.hashFunction).joined(separator: ", ")
            return DTLSError(.unsupportedHashFunction, "no supported hash function among the fingerprints (\(names))")
        }
        let candidates = fingerprints.filter { $0.hashFunction.lowercased() == strongest }
        guard let presented = fingerprint(of: certificate, hashFunction: strongest) else {
            return DTLSError(.libraryFailure, "cannot digest the peer's certificate with \(strongest)")
        }
        if candidates.contains(where: { $0.bytes == presented.bytes }) { return nil }
        var error = DTLSError(
            .fingerprintMismatch,
            "the peer's certificate is \(presented.attributeValue), its SDP says "
                + candidates.map(\.attributeValue).joined(separator: " or "))
        error.expectedFingerprint = candidates.first
        error.presentedFingerprint = presented
        return error
    }
}
