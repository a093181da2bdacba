public import SDP

extension MediaSession {
    /// Applies a negotiated session: the first answer, a re-offer's, or a new early answer.
    ///
    /// When the codec, keys, RTP address, telephone-event and muxing are those already in use, only the
    /// direction changes and every state is kept. Otherwise the codec and SRTP state are built afresh, while
    /// the SSRC and sequence numbers go on (a new codec is not a new source, RFC 3550 §8) unless the clock
    /// rate changed, and the receive statistics and jitter buffer go on at the same clock rate. A new RTP
    /// address starts the symmetric RTP latch over (RFC 4961).
    /// - Parameters:
    ///   - negotiated: the offer/answer outcome.
    ///   - rtpAddress: where to send RTP until a packet latches: the peer's address resolved by the driver,
    ///     `nil` when it gave none (c=0.0.0.0 hold).
    ///   - rtcpAddress: where to send RTCP without rtcp-mux until RTCP latches (a=rtcp, or the RTP port + 1).
    ///   - now: the driver's time now.
    /// - Throws: ``MediaSessionError``: the codec is not implemented, a coder or SRTP context failed, or the
    ///   session is closed. The session is then not negotiated: it sends and plays nothing until the next
    ///   successful call.
    @inlinable
    public mutating func configure(
        _ negotiated: NegotiatedSession, rtpAddress: Address?, rtcpAddress: Address?, at now: MediaInstant
    ) throws(MediaSessionError) {
        let isFirst = try apply(
            negotiated, keepsRTPAddress: rtpLatch.signalledAddress == rtpAddress, hasRTPAddress: rtpAddress != nil,
            at: now)
        updateLatches(rtp: rtpAddress, rtcp: rtcpAddress, isFirst: isFirst)
    }

    /// What ``configure(_:rtpAddress:rtcpAddress:at:)`` does besides the latches, which needs no address: it
    /// runs unspecialised without looking up any type metadata. Returns whether it was the first negotiation.
    @usableFromInline
    mutating func apply(
        _ negotiated: NegotiatedSession, keepsRTPAddress: Bool, hasRTPAddress: Bool, at now: MediaInstant
    ) throws(MediaSessionError) -> Bool {
        let previous = takeStream()
        if previous == nil, state.isClosed { throw .closed }
        var stream: NegotiatedStream
        if let kept = previous, kept.hasSameMedia(as: negotiated), keepsRTPAddress {
            stream = kept
            stream.negotiated = negotiated
        } else {
            clock.set(now)
            stream = try makeStream(negotiated, keeping: previous)
            counters.codec = negotiated.codec.encodingName
            alignTicks(to: now)
        }
        stream.sender.headerExtension = Self.midExtension(of: negotiated)
        stream.sends = negotiated.direction.sends && hasRTPAddress
        stream.receives = negotiated.direction.receives
        restore(stream)
        watch.update(isReceiving: stream.receives, at: now)
        return previous == nil
    }

    /// Takes incoming media from now on, ahead of the answer: a resume's re-offer asks to receive, and
    /// RFC 3264 §5.1 has the offerer ready for that media once the offer is sent. The answer's
    /// ``configure(_:rtpAddress:rtcpAddress:at:)`` then sets the negotiated direction.
    /// - Parameter now: the driver's time now.
    public mutating func prepareToReceive(at now: MediaInstant) {
        guard var stream = takeStream() else { return }
        stream.receives = true
        restore(stream)
        watch.update(isReceiving: true, at: now)
    }

    /// A new RTP address (or the first) starts both latches over; a new RTCP address only the RTCP one.
    @inlinable
    mutating func updateLatches(rtp: Address?, rtcp: Address?, isFirst: Bool) {
        if isFirst || rtpLatch.signalledAddress != rtp {
            rtpLatch.reset(signalledAddress: rtp)
            rtcpLatch.reset(signalledAddress: rtcp)
        } else if rtcpLatch.signalledAddress != rtcp {
            rtcpLatch.reset(signalledAddress: rtcp)
        }
    }

    private mutating func makeStream(_ negotiated: NegotiatedSession, keeping previous: NegotiatedStream?)
        throws(MediaSessionError) -> NegotiatedStream
    {
        let codec = negotiated.codec
        guard let kind = AudioCodecKind(codec) else {
            throw .unsupportedCodec("\(codec.encodingName)/\(codec.clockRate)")
        }
        let (encoder, decoder) = try makeCoders(kind, for: negotiated)
        var keys: (outbound: SRTPContext, inbound: SRTPContext)?
        if let parameters = negotiated.srtp {
            do throws(SRTPError) { keys = try SRTPContext.pair(for: parameters) } catch { throw .srtp(error) }
        } else if negotiated.dtls != nil {
            keys = try Self.contexts(for: pathKeys)
        }
        // At the same clock rate the receive statistics and the buffered audio go on.
        let kept = previous?.sender.clockRate == codec.clockRate ? previous : nil
        let events = negotiated.telephoneEvent
        // The sender draws its SSRC before the RTCP session draws its seed.
        let sender = makeSender(codec, keeping: previous)
        var stream = NegotiatedStream(
            kind: kind, machinery: .init(encoder: encoder, decoder: decoder, rtcp: makeRTCPSession()), sender: sender,
            reception: kept?.reception, receivePayloadType: codec.receivePayloadType,
            telephoneEvent: events.map { ($0.sendPayloadType, $0.receivePayloadType) }, tones: nil,
            outbound: keys?.outbound, inbound: keys?.inbound, sends: false, receives: false,
            isRTCPMuxed: negotiated.isRTCPMuxed, negotiated: negotiated)
        stream.isDTX = NegotiatedStream.asksForDTX(kind, codec.sendFormatParameters)
        stream.isReceivingDTX = NegotiatedStream.asksForDTX(kind, codec.receiveFormatParameters)
        return stream
    }

    /// The MID header extension every RTP packet carries once both sides mapped it in a BUNDLE (RFC 9143 §14:
    /// it ties the packets to the `m=` section; the one-byte form, RFC 8285 §4.2); `nil` otherwise, or when the
    /// identifier or the MID does not fit that form.
    static func midExtension(of negotiated: NegotiatedSession) -> RTPHeaderExtension? {
        guard negotiated.isBundled, let identifier = negotiated.midExtensionID, identifier <= 14,
            let mid = negotiated.mediaID
        else { return nil }
        return RTPHeaderExtension(oneByteElements: [(UInt8(identifier), Array(mid.utf8))])
    }

    /// The encoder (20 ms frames, the peer's fmtp) and the decoder (the peer's ptime, 10-60 ms).
    private func makeCoders(_ kind: AudioCodecKind, for negotiated: NegotiatedSession) throws(MediaSessionError)
        -> (any AudioEncoder, any AudioDecoder)
    {
        let packetTime = min(max(negotiated.remotePacketTime ?? 20, 10), 60) / 10 * 10
        do throws(AudioCodecError) {
            let encoder = try kind.makeEncoder(
                remoteFormatParameters: negotiated.codec.sendFormatParameters, packetTime: 20,
                opus: configuration.opus)
            return (encoder, try kind.makeDecoder(packetTime: packetTime))
        } catch {
            throw .codec(error)
        }
    }

    /// The sender: the previous one with the new payload type at the same clock rate, else a new source.
    private mutating func makeSender(_ codec: NegotiatedSession.NegotiatedCodec, keeping previous: NegotiatedStream?)
        -> RTPSender
    {
        if var sender = previous?.sender, sender.clockRate == codec.clockRate {
            sender.payloadType = codec.sendPayloadType
            return sender
        }
        return RTPSender(payloadType: codec.sendPayloadType, clockRate: codec.clockRate, using: &random)
    }

    /// The receive side of `stream`, made now when it has none yet.
    func reception(of stream: inout NegotiatedStream) -> StreamReception {
        if let reception = stream.reception { return reception }
        let clockRate = stream.negotiated.codec.clockRate
        let delays = configuration.jitterDelays
        let jitter = JitterBuffer(
            configuration: JitterBufferConfiguration(
                clockRate: clockRate, frameSamples: stream.encoder.timestampIncrement, minimumDelay: delays.minimum,
                maximumDelay: delays.maximum, initialDelay: delays.initial))
        let reception = StreamReception(receiver: RTPReceiver(clockRate: clockRate), jitter: jitter)
        stream.reception = reception
        return reception
    }

    private mutating func makeRTCPSession() -> RTCPSession {
        let configuration = RTCPConfiguration(
            cname: cname, sessionBandwidth: self.configuration.rtcpSessionBandwidth,
            minimumInterval: self.configuration.rtcpMinimumInterval)
        return RTCPSession(configuration: configuration, clock: clock, random: SessionRandom(using: &random))
    }

    /// Moves the next tick to the first grid point at or after `now` (nothing ticks while not negotiated).
    private mutating func alignTicks(to now: MediaInstant) {
        guard nextTick < now else { return }
        let interval = Self.packetNanoseconds
        let behind = (now.nanoseconds &- nextTick.nanoseconds) / interval
        nextTick = MediaInstant(nanoseconds: nextTick.nanoseconds &+ behind &* interval)
        if nextTick < now { nextTick = MediaInstant(nanoseconds: nextTick.nanoseconds &+ interval) }
    }
}
