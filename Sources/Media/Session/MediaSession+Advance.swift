extension MediaSession {
    /// Runs every packet interval due by `now`: each sends one frame (audio, silence or a telephone-event,
    /// as the activity, mute and direction allow) and plays one (decoded, concealed or silence), then the
    /// RTCP report, the telephone-event end timeout and the media timeout run when due.
    ///
    /// Call it when ``nextDeadline`` comes (calling it early or twice does no harm). When the driver comes
    /// more than ``MediaSessionConfiguration/maximumCatchUp`` intervals late, the older intervals are
    /// skipped: their RTP time passes unsent rather than in a burst.
    /// - Parameters:
    ///   - now: the driver's monotonic time now.
    ///   - audio: supplies the frames to send and takes the frames played and sent.
    public mutating func advance(to now: MediaInstant, audio: inout some MediaAudioPort) {
        guard var stream = takeStream() else { return }
        skipLateTicks(before: now, in: &stream)
        // Bounded as well as by time: a clock at the end of its range must not wrap the loop around.
        for _ in 0..<max(configuration.maximumCatchUp, 1) where nextTick <= now {
            sendFrame(at: nextTick, from: &stream, audio: &audio)
            playFrame(at: nextTick, from: &stream, audio: &audio)
            nextTick = MediaInstant(nanoseconds: nextTick.nanoseconds &+ Self.packetNanoseconds)
        }
        reportIfDue(at: now, from: &stream)
        _ = stream.reception?.toneReceiver.poll(now: now.sinceOrigin)
        if let timeout = configuration.mediaTimeout {
            watch.update(isReceiving: stream.receives, at: now)
            if watch.hasTimedOut(after: timeout, at: now) { report(.mediaTimeout) }
        }
        restore(stream)
    }

    /// Runs the intervals due by `now` with no audio device: silence goes out, nothing is played.
    /// - Parameter now: the driver's monotonic time now.
    public mutating func advance(to now: MediaInstant) {
        var silent = SilentAudioPort()
        advance(to: now, audio: &silent)
    }

    private mutating func skipLateTicks(before now: MediaInstant, in stream: inout NegotiatedStream) {
        guard nextTick <= now else { return }
        let interval = Self.packetNanoseconds
        let allowed = Int64(max(configuration.maximumCatchUp, 1))
        // A gap too large for 64 bits (a hostile or broken clock) skips as far as it can.
        let (gap, overflow) = now.nanoseconds.subtractingReportingOverflow(nextTick.nanoseconds)
        let skipped = overflow ? Int64.max / interval : gap / interval + 1 - allowed
        guard skipped > 0 else { return }
        stream.sender.skip(samples: UInt32(truncatingIfNeeded: Int64(stream.samplesPerPacket) &* skipped))
        let lastDue = overflow ? now.nanoseconds : now.nanoseconds - gap % interval
        nextTick = MediaInstant(nanoseconds: lastDue &- (allowed - 1) &* interval)
        counters.skippedTicks &+= UInt64(skipped)
    }

    private mutating func reportIfDue(at now: MediaInstant, from stream: inout NegotiatedStream) {
        guard now >= stream.rtcp.nextReportTime else { return }
        clock.set(now)
        let sender = stream.sender
        var rtcp = stream.rtcp
        let report = stream.withReceiver { rtcp.timerExpired(sender: sender, receiver: &$0) }
        stream.rtcp = rtcp
        guard let compound = report,
            let destination = rtcpDestination(of: stream), let bytes = stream.protectRTCP(compound)
        else { return }
        send(bytes, to: destination, from: stream.isRTCPMuxed ? .rtp : .rtcp)
        counters.rtcpSent &+= 1
    }

    /// Where RTCP goes: the RTP destination with rtcp-mux, else the RTCP port's latch.
    func rtcpDestination(of stream: NegotiatedStream) -> Address? {
        stream.isRTCPMuxed ? rtpLatch.destination : rtcpLatch.destination
    }

    /// Sends an RTCP BYE (RFC 3550 §6.6), if the session ever sent a packet, and stops: later calls do
    /// nothing, and ``statistics`` keeps the final figures.
    /// - Parameters:
    ///   - now: the driver's monotonic time now.
    ///   - reason: a reason for leaving, none by default.
    @inlinable
    public mutating func close(at now: MediaInstant, reason: String? = nil) {
        let rtp = rtpLatch.destination
        let rtcp = rtcpLatch.destination
        guard
            let goodbye = leave(
                at: now, reason: reason, hasRTPDestination: rtp != nil, hasRTCPDestination: rtcp != nil),
            let destination = goodbye.port == .rtp ? rtp : rtcp
        else { return }
        send(goodbye.bytes, to: destination, from: goodbye.port)
    }

    /// What ``close(at:reason:)`` does besides queueing the BYE, which needs no address: closes the state and
    /// returns the protected BYE and its port, when there is one and the port has a destination.
    @usableFromInline
    mutating func leave(at now: MediaInstant, reason: String?, hasRTPDestination: Bool, hasRTCPDestination: Bool)
        -> (bytes: [UInt8], port: MediaPort)?
    {
        guard let stream = takeStream() else {
            if !state.isClosed { state = .closed(counters.figures) }
            return nil
        }
        clock.set(now)
        // RFC 3550 §6.3.7: a participant that never sent an RTP or RTCP packet must not send a BYE. A call
        // hung up before its first 20 ms frame (a load test's zero-length call) leaves without one.
        guard counters.packetsSent > 0 || counters.rtcpSent > 0 || counters.dtmfSent > 0 else {
            state = .closed(counters.figures(with: stream))
            return nil
        }
        let sender = stream.sender
        var rtcp = stream.rtcp
        let goodbye = stream.withReceiver { rtcp.makeGoodbye(sender: sender, receiver: &$0, reason: reason) }
        stream.rtcp = rtcp
        let port = stream.isRTCPMuxed ? MediaPort.rtp : .rtcp
        var sent: (bytes: [UInt8], port: MediaPort)?
        if port == .rtp ? hasRTPDestination : hasRTCPDestination, let bytes = stream.protectRTCP(goodbye) {
            sent = (bytes, port)
            counters.rtcpSent &+= 1
        }
        state = .closed(counters.figures(with: stream))
        return sent
    }
}
