import SDP

extension MediaSession {
    /// Sets what the session does with media: playout and sending apart (see ``MediaActivity``). It ends
    /// early media (``setEarlyMedia(_:)``) without bringing back what early media stood in for.
    /// - Parameter activity: e.g. ``MediaActivity/earlyMedia`` on a 183 with SDP, ``MediaActivity/active``
    ///   once the app activated audio.
    public mutating func setActivity(_ activity: MediaActivity) {
        activityAfterEarlyMedia = nil
        self.activity = activity
    }

    /// Sets what goes out, keeping playout as it is; ends early media as ``setActivity(_:)`` does.
    /// - Parameter sending: nothing, silence or the captured audio.
    public mutating func setSending(_ sending: MediaActivity.Sending) {
        activityAfterEarlyMedia = nil
        activity.sending = sending
    }

    /// Turns playout of received audio on or off, keeping sending as it is; ends early media as
    /// ``setActivity(_:)`` does.
    /// - Parameter isPlayingOut: whether received audio is handed out.
    public mutating func setPlayout(_ isPlayingOut: Bool) {
        activityAfterEarlyMedia = nil
        activity.isPlayingOut = isPlayingOut
    }

    /// Mutes or unmutes: while muted, silence goes out and the audio port is not asked for frames (a file
    /// source pauses). Telephone-events still go out.
    /// - Parameter isMuted: whether to mute.
    public mutating func setMuted(_ isMuted: Bool) { self.isMuted = isMuted }

    /// Queues digits to go out as RFC 4733 telephone-events, after any queued before, in place of audio.
    /// - Parameter digits: the digits.
    /// - Returns: false when no telephone-event was negotiated (nothing is queued).
    @discardableResult
    public mutating func sendDigits(_ digits: [DTMFDigit]) -> Bool {
        guard var stream = takeStream() else { return false }
        defer { restore(stream) }
        guard stream.telephoneEvent != nil else { return false }
        if stream.tones == nil {
            let negotiated = stream.negotiated
            stream.tones = NegotiatedStream.ToneSending(
                TelephoneEventSender(
                    clockRate: Int(negotiated.telephoneEvent?.clockRate ?? negotiated.codec.clockRate),
                    toneDuration: configuration.toneDuration, gapDuration: configuration.toneGap))
        }
        stream.tones?.sender.send(digits)
        counters.dtmfSent &+= UInt32(truncatingIfNeeded: digits.count)
        return true
    }

    /// The negotiated stream, when there is one (a copy: read only).
    private var stream: NegotiatedStream? {
        if case .streaming(let stream) = state { return stream }
        return nil
    }

    /// Whether telephone-event was negotiated.
    public var sendsTelephoneEvents: Bool { stream?.telephoneEvent != nil }

    /// The codec in use, once negotiated.
    public var codec: AudioCodecKind? { stream?.kind }

    /// The PCM format of the frames to send (the encoder's), once negotiated.
    @inlinable
    public var sendFormat: AudioFormat? { state.sendFormat }

    /// The PCM format of the frames played (the decoder's), once negotiated.
    @inlinable
    public var receiveFormat: AudioFormat? { state.receiveFormat }

    /// Our SSRC, once negotiated.
    public var ssrc: UInt32? { stream?.sender.ssrc }

    /// Where RTP goes now: the latched address, else the signalled one.
    @inlinable
    public var rtpDestination: Address? { rtpLatch.destination }

    /// The figures so far (after ``close(at:reason:)``, the final ones).
    @inlinable
    public var statistics: MediaSessionStatistics { state.statistics(counters) }

    /// The figures of ``statistics`` that tell the call's quality, read for less.
    @inlinable
    public var quality: MediaSessionQuality { state.quality(counters) }
}

extension MediaSessionCounters {
    /// The counters, with the receive side's figures of `stream`.
    func figures(with stream: NegotiatedStream) -> MediaSessionStatistics {
        var figures = self.figures
        figures.roundTripMilliseconds = stream.rtcp.roundTripTime.map(\.milliseconds)
        guard let reception = stream.reception else { return figures }
        if let source = reception.receiver.source {
            figures.packetsReceived = Int(source.validPackets)
            figures.packetsLost = Int(source.cumulativeLost)
            figures.expected = Int(source.expectedPackets)
            figures.jitterMilliseconds = source.jitterMilliseconds
        }
        let buffer = reception.jitter.statistics
        figures.playoutDelayMilliseconds = buffer.playoutDelay.milliseconds
        figures.resynchronisations = buffer.resynchronisations
        return figures
    }
}

extension MediaSessionState {
    /// ``statistics(_:)``'s quality figures, without making the rest.
    @usableFromInline
    func quality(_ counters: MediaSessionCounters) -> MediaSessionQuality {
        var quality = MediaSessionQuality()
        switch self {
        case .closed(let final): return MediaSessionQuality(final)
        case .idle: break
        case .streaming(let stream):
            quality.roundTripMilliseconds = stream.rtcp.roundTripTime.map(\.milliseconds)
            if let reception = stream.reception {
                if let source = reception.receiver.source {
                    quality.packetsReceived = Int(source.validPackets)
                    quality.packetsLost = Int(source.cumulativeLost)
                    quality.expected = Int(source.expectedPackets)
                    quality.jitterMilliseconds = source.jitterMilliseconds
                }
                quality.playoutDelayMilliseconds = reception.jitter.statisticsStorage.playoutDelay.milliseconds
            }
        }
        quality.packetsSent = Int(counters.packetsSent)
        quality.codec = counters.codec
        return quality
    }
}

extension Duration {
    /// The duration in milliseconds as a floating-point value.
    fileprivate var milliseconds: Double { seconds * 1000 }
}
