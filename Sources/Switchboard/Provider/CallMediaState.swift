/// One call's media wishes and where they stand: the audio the app set, whether it asked for audio, whether
/// audio is active, and early media (RFC 3960) on an outgoing call. The decisions, not the stream: the
/// caller applies what they return to the call's `MediaStream`. Pure.
struct CallMediaState {
    /// Whether audio is active (media flows to and from the app).
    private(set) var isAudioActive = false
    /// The app asked for audio (manual activation), perhaps before the call connected.
    private(set) var audioRequested = false
    /// An early answer arrived with the provisional response about to be reported (its `ringing` says so).
    private var hasNewEarlyMedia = false
    /// An early dialog's answer set up the stream before the call connected (outgoing calls).
    private(set) var hasEarlyMedia = false
    /// The stream plays and records early media (and sends nothing) until the answer.
    private(set) var isEarlyMediaPlaying = false
    /// The call's audio when the app set one (else the configuration's default).
    private(set) var audio: CallAudio?
    /// The session whose stream has `audio` (a redirection or a new `audio` makes it stale).
    private var audioAppliedTo: SessionKey?
    /// The peer negotiated RFC 4733 telephone-events.
    var sendsTelephoneEvents = false

    // MARK: Audio

    /// The app set the call's audio; it is applied to the next stream that asks (`pendingAudio`).
    mutating func setAudio(_ audio: CallAudio) {
        self.audio = audio
        audioAppliedTo = nil
    }

    /// The app's audio if the stream of session `key` does not have it yet; from now on it does.
    mutating func pendingAudio(for key: SessionKey) -> CallAudio? {
        guard let audio, audioAppliedTo != key else { return nil }
        audioAppliedTo = key
        return audio
    }

    /// The app asked for audio, or to stop it (kept for later when the call is not connected yet).
    mutating func requestAudio(_ active: Bool) { audioRequested = active }

    /// Whether audio may run now: automatic activation, or the app asked for it.
    func mayPlay(manualActivation: Bool) -> Bool { !manualActivation || audioRequested }

    /// Activates or deactivates audio; returns whether that changed anything. Audio becomes active only on
    /// a connected call (it stops on any).
    mutating func setAudioActive(_ active: Bool, isConnected: Bool) -> Bool {
        guard isConnected || !active, isAudioActive != active else { return false }
        isAudioActive = active
        return true
    }

    // MARK: Early media

    /// An early dialog of an outgoing call sent an answer: its media may play before the 2xx.
    mutating func earlyAnswerArrived() {
        hasNewEarlyMedia = true
        hasEarlyMedia = true
    }

    /// Whether the provisional response about to be reported brought the early answer (once).
    mutating func takeNewEarlyMedia() -> Bool {
        defer { hasNewEarlyMedia = false }
        return hasNewEarlyMedia
    }

    /// Starts early media if there is some, it is not playing, the call is still being set up, and audio
    /// may play; returns whether the stream must start playing it.
    mutating func startEarlyMedia(state: Call.State, manualActivation: Bool) -> Bool {
        guard hasEarlyMedia, !isEarlyMediaPlaying, state != .connected, state != .ended,
            mayPlay(manualActivation: manualActivation)
        else { return false }
        isEarlyMediaPlaying = true
        return true
    }

    /// Stops early media (the answer came, or the app deactivated audio); returns whether it was playing.
    mutating func stopEarlyMedia() -> Bool {
        defer { isEarlyMediaPlaying = false }
        return isEarlyMediaPlaying
    }

    /// A 3xx sends the call elsewhere: the early media of the old target is gone.
    mutating func forgetEarlyMedia() {
        hasEarlyMedia = false
        isEarlyMediaPlaying = false
    }
}
