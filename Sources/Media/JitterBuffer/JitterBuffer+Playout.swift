extension JitterBuffer {
    /// The decoder's pull: what to play for the next frame interval. Call once per ``frameDuration``, at
    /// the instant the frame is needed.
    /// - Parameter now: the time of the pull.
    /// - Returns: a frame to decode, or what to synthesize instead.
    public mutating func pull(at now: MediaInstant) -> JitterBufferOutput {
        let time = Double(now.nanoseconds)
        guard let base = estimator.base(at: now.nanoseconds) ?? lastBase else { return .idle }
        lastBase = base
        let target = targetDelay
        let frame = nanoseconds(samples: frameSamples)
        statisticsStorage.targetDelay = JitterBuffer.duration(nanoseconds: target)

        if state == .buffering {
            guard let head = entries.first, time - mediaTime(head.timestamp) >= base + target else { return .idle }
            if let lastPlayedSequence, head.sequence > lastPlayedSequence + 1 {
                statisticsStorage.lost += Int(min(head.sequence - lastPlayedSequence - 1, Int64(Int.max / 2)))
            }
            next = head.timestamp
            state = .playing
        }
        guard let position = next else { return .idle }
        // How far the playout runs above the target delay if the frame at `position` plays now.
        let excess = time - mediaTime(position) - base - target
        statisticsStorage.playoutDelay = JitterBuffer.duration(nanoseconds: max(time - mediaTime(position) - base, 0))

        guard let head = entries.first else {
            // Underrun: stretch by a frame while the delay is below the target plus a frame. Beyond that the
            // timeline runs on (a packet that comes later is late: the delay stays bounded), and after a few
            // empty frames the sender is taken to have paused.
            emptyPulls += 1
            if excess < frame * configuration.underrunStretch && emptyPulls <= JitterBuffer.pauseAfter {
                return expand()
            }
            next = position + frameSamples
            if emptyPulls > JitterBuffer.pauseAfter { return .idle }
            // The frame's slot passes: conceal it (its sequence number is unknown: this may be a DTX pause).
            statisticsStorage.concealed += 1
            return .missing(timestamp: timeline.rtpTimestamp(at: position), sequenceNumber: nil, next: nil)
        }
        emptyPulls = 0
        let maximumGap = Int64(Double(configuration.maximumDelay.nanoseconds) * Double(configuration.clockRate) / 1e9)
        if head.timestamp - position > max(maximumGap, 2 * frameSamples) {
            // A gap longer than the maximum delay (a long silence or a loss burst): restart at the head.
            state = .buffering
            return pull(at: now)
        }
        if head.timestamp < position + frameSamples / 2 {
            return playHead(excess: excess, frame: frame)
        }
        // The frame at `position` is not here but later ones are.
        let isSilence = lastPlayedSequence.map { head.sequence == $0 + 1 } ?? false
        if isSilence {
            // DTX: nothing was sent. Silence costs nothing to stretch or skip, so adjust the delay here.
            if excess < 0 { return .silence }
            next = position + (excess >= frame ? 2 : 1) * frameSamples
            statisticsStorage.silentFrames += 1
            return .silence
        }
        if excess < -frame / 2 {
            // Below the target: wait a frame, the packet may only be reordered.
            return expand()
        }
        next = position + frameSamples
        let following = head.timestamp < position + frameSamples + frameSamples / 2 ? head : nil
        statisticsStorage.lost += 1
        statisticsStorage.concealed += 1
        let expected = lastPlayedSequence.map { UInt16(truncatingIfNeeded: $0 + 1) }
        if let lastPlayedSequence { self.lastPlayedSequence = lastPlayedSequence + 1 }
        return .missing(
            timestamp: timeline.rtpTimestamp(at: position), sequenceNumber: expected, next: following?.frame)
    }

    /// Plays the head packet, dropping it first when the delay is a frame or more above the target and the
    /// next frame is there to play instead; stretches instead when the delay is more than half a frame below.
    /// The band between (one and a half frames wide) is the hysteresis that keeps a slowly sliding delay
    /// (clock drift, the pull grid against the sender's) from alternating drops and stretches.
    private mutating func playHead(excess: Double, frame: Double) -> JitterBufferOutput {
        if excess < -frame / 2 { return expand() }
        if excess >= frame, entries.count >= 2,
            entries[1].timestamp < entries[0].timestamp + frameSamples + frameSamples / 2
        {
            let dropped = entries.removeFirst()
            lastPlayedSequence = dropped.sequence
            statisticsStorage.accelerations += 1
        }
        let entry = entries.removeFirst()
        next = entry.timestamp + frameSamples
        lastPlayedSequence = entry.sequence
        statisticsStorage.played += 1
        return .frame(entry.frame)
    }

    private mutating func expand() -> JitterBufferOutput {
        statisticsStorage.expansions += 1
        statisticsStorage.concealed += 1
        return .expand
    }

    /// The media time of an extended timestamp, in nanoseconds from the stream's first timestamp.
    func mediaTime(_ timestamp: Int64) -> Double { nanoseconds(samples: timestamp &- timeline.origin) }
}
