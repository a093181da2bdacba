/// Why a ``MediaSession`` could not take a negotiated session. A struct over a private code, so new cases
/// do not break users.
public struct MediaSessionError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case unsupportedCodec(String)
        case codec(AudioCodecError)
        case srtp(SRTPError)
        case closed
    }

    private let code: Code

    /// The negotiated codec has no implementation here.
    /// - Parameter name: its encoding name and clock rate.
    public static func unsupportedCodec(_ name: String) -> MediaSessionError {
        MediaSessionError(code: .unsupportedCodec(name))
    }

    /// The encoder or decoder could not be made.
    /// - Parameter error: the codec's error.
    public static func codec(_ error: AudioCodecError) -> MediaSessionError { MediaSessionError(code: .codec(error)) }

    /// The SRTP contexts could not be made from the negotiated keys.
    /// - Parameter error: the SRTP error.
    public static func srtp(_ error: SRTPError) -> MediaSessionError { MediaSessionError(code: .srtp(error)) }

    /// The session is closed.
    public static let closed = MediaSessionError(code: .closed)

    /// What went wrong, in words.
    public var description: String {
        switch code {
        case .unsupportedCodec(let name): "unsupported codec \(name)"
        case .codec(let error): "codec: \(error)"
        case .srtp(let error): "SRTP: \(error)"
        case .closed: "the media session is closed"
        }
    }
}
