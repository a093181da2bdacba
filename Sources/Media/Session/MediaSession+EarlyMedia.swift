extension MediaSession {
    /// True while early media runs (``setEarlyMedia(_:)``).
    public var isEarlyMedia: Bool { activityAfterEarlyMedia != nil }

    /// Starts or ends early media (RFC 3960), as the signalling side decides: a 183 with SDP starts it, the
    /// 2xx ends it. While it runs, what arrives is played and recorded, and nothing is sent, not even silence
    /// (``MediaActivity/earlyMedia``). When it ends, the activity from before comes back, with whatever
    /// ``setAudioActive(_:)`` changed meanwhile.
    /// - Parameter isEarly: whether early media runs.
    public mutating func setEarlyMedia(_ isEarly: Bool) {
        if isEarly {
            activityAfterEarlyMedia = activityAfterEarlyMedia ?? activity
            activity = .earlyMedia
        } else if let after = activityAfterEarlyMedia {
            activityAfterEarlyMedia = nil
            activity = after
        }
    }

    /// The app's audio activation (CallKit's `didActivate`): once active, the captured audio goes out and
    /// received audio is played (``MediaActivity/active``); until then, and after a deactivation, silence goes
    /// out, which keeps NAT bindings and the peer's latch alive, and nothing is played
    /// (``MediaActivity/awaitingActivation``). During early media it takes effect when early media ends.
    /// - Parameter isActive: whether the app's audio is active.
    public mutating func setAudioActive(_ isActive: Bool) {
        let activity = isActive ? MediaActivity.active : .awaitingActivation
        if isEarlyMedia {
            activityAfterEarlyMedia = activity
        } else {
            self.activity = activity
        }
    }
}
