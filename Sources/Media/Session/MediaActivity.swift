/// What a ``MediaSession`` does with media, apart from what offer/answer allows: playout and sending are
/// separate, so early media (a 183 with SDP) can be heard before anything is sent.
///
/// The negotiated direction still applies on top: nothing is sent to a `recvonly` peer whatever the
/// activity says.
public struct MediaActivity: Hashable, Sendable {
    /// What goes out each packet interval.
    public enum Sending: Hashable, Sendable {
        /// Nothing: no RTP is sent (the RTP clock still runs, RFC 3550 §5.1).
        case off
        /// Packets of silence: keeps NAT bindings and the peer's symmetric RTP alive before audio is active.
        case silence
        /// The captured audio (or silence while muted).
        case audio
    }

    /// What goes out.
    public var sending: Sending
    /// True when received audio is decoded and handed out for playout and recording.
    public var isPlayingOut: Bool

    /// - Parameters:
    ///   - sending: what goes out.
    ///   - isPlayingOut: whether received audio is played out.
    public init(sending: Sending, isPlayingOut: Bool) {
        self.sending = sending
        self.isPlayingOut = isPlayingOut
    }

    /// Neither: the state before an answer.
    public static let inactive = MediaActivity(sending: .off, isPlayingOut: false)
    /// Early media: the peer's audio is played (and recorded), nothing is sent.
    public static let earlyMedia = MediaActivity(sending: .off, isPlayingOut: true)
    /// Answered but audio not yet activated by the app: silence goes out, nothing is played.
    public static let awaitingActivation = MediaActivity(sending: .silence, isPlayingOut: false)
    /// Both ways: captured audio goes out and received audio is played.
    public static let active = MediaActivity(sending: .audio, isPlayingOut: true)
}
