import CSRTP

/// libsrtp2's one-time initialisation.
enum SRTPLibrary {
    /// The status of `srtp_init`, called exactly once on first use: Swift runs a global's initializer once,
    /// thread-safely (`swift_once`), so concurrent first sessions cannot race it.
    static let status: UInt32 = srtp_init().rawValue
}
