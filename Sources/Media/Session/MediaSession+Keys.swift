public import SDP

/// SRTP master keys agreed on the media path rather than in the SDP: DTLS-SRTP's (RFC 5764 §4.2), each
/// direction's master key followed by its master salt.
///
/// The description names the suite only: keys never appear in logs.
public struct MediaPathKeys: Hashable, Sendable, CustomStringConvertible {
    /// The SRTP crypto suite both directions use.
    public var suite: CryptoSuite
    /// Our write key and salt: protects what we send.
    public var localMasterKeySalt: [UInt8]
    /// The peer's write key and salt: unprotects what we receive.
    public var remoteMasterKeySalt: [UInt8]

    /// - Parameters:
    ///   - suite: the suite.
    ///   - localMasterKeySalt: our write key and salt.
    ///   - remoteMasterKeySalt: the peer's.
    public init(suite: CryptoSuite, localMasterKeySalt: [UInt8], remoteMasterKeySalt: [UInt8]) {
        self.suite = suite
        self.localMasterKeySalt = localMasterKeySalt
        self.remoteMasterKeySalt = remoteMasterKeySalt
    }

    public var description: String { "SRTP keys (\(suite), redacted)" }
}

extension MediaSession {
    /// Keys SRTP from the media path (DTLS-SRTP, RFC 5764 §4.2). Until a session negotiated with
    /// `NegotiatedSession/dtls` has them, it sends nothing and drops what arrives (RFC 5763 §5: no plain RTP
    /// on a DTLS-SRTP session). They stay for later negotiations of the same association; `nil` forgets them
    /// (a new association: silent again until its keys come).
    /// - Parameters:
    ///   - keys: the keys, or `nil`.
    ///   - now: the driver's time now.
    /// - Throws: ``MediaSessionError/srtp(_:)`` when the contexts cannot be made; the session then stays unkeyed.
    public mutating func setPathKeys(_ keys: MediaPathKeys?, at now: MediaInstant) throws(MediaSessionError) {
        pathKeys = keys
        guard var stream = takeStream() else { return }
        defer { restore(stream) }
        guard stream.negotiated.dtls != nil else { return }
        let contexts = try Self.contexts(for: keys)
        stream.outbound = contexts?.outbound
        stream.inbound = contexts?.inbound
        watch.update(isReceiving: stream.receives, at: now)
    }

    /// The contexts for path keys; `nil` without keys.
    static func contexts(for keys: MediaPathKeys?) throws(MediaSessionError) -> (
        outbound: SRTPContext, inbound: SRTPContext
    )? {
        guard let keys else { return nil }
        do throws(SRTPError) {
            return (
                try SRTPContext(suite: keys.suite, masterKeySalt: keys.localMasterKeySalt, direction: .outbound),
                try SRTPContext(suite: keys.suite, masterKeySalt: keys.remoteMasterKeySalt, direction: .inbound)
            )
        } catch {
            throw .srtp(error)
        }
    }

    /// Whether SRTP is keyed for the negotiated session, or needs no keys (plain RTP, SDES).
    public var isKeyed: Bool {
        guard case .streaming(let stream) = state else { return false }
        return stream.isKeyed
    }
}
