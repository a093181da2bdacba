extension MediaSession {
    /// One packet interval of sending: a telephone-event packet while a digit goes out, else one encoded
    /// frame of the captured audio or silence; nothing (the RTP clock still moves, RFC 3550 §5.1) while
    /// sending is off, the direction does not send or there is no destination.
    mutating func sendFrame(
        at instant: MediaInstant, from stream: inout NegotiatedStream, audio: inout some MediaAudioPort
    ) {
        guard activity.sending != .off, stream.sends, let destination = rtpLatch.destination else {
            stream.sender.skip(samples: stream.samplesPerPacket, at: instant)
            return
        }
        if let tone = nextTone(of: &stream) {
            transmit(tone, of: stream, to: destination)
            stream.sender.skip(samples: stream.samplesPerPacket, at: instant)
            let silent = silence(stream.encoder.samplesPerFrame)
            audio.didSend(
                MediaAudioFrame(samples: silent, format: stream.encoder.format, origin: .silence, instant: instant))
            return
        }
        let frame = captureFrame(for: stream, at: instant, audio: &audio)
        guard let payload = try? stream.encoder.encode(frame.samples) else {
            stream.sender.skip(samples: stream.samplesPerPacket, at: instant)
            return
        }
        // A DTX frame (RFC 7587 §3.1.3: libopus's two bytes or less) is not sent; its RTP time passes.
        if payload.count <= 2, stream.isDTX {
            stream.sender.skip(samples: stream.samplesPerPacket, at: instant)
            audio.didSend(frame)
            return
        }
        let packet = stream.sender.packet(payload: payload[...], samples: stream.samplesPerPacket, at: instant)
        transmit(packet, of: stream, to: destination)
        audio.didSend(frame)
    }

    /// The telephone-event packet of this interval, when a digit is going out (its gaps carry audio).
    private func nextTone(of stream: inout NegotiatedStream) -> RTPPacket? {
        guard let events = stream.telephoneEvent, let tones = stream.tones else { return nil }
        guard !tones.sender.isIdle else {
            stream.tones = nil
            return nil
        }
        guard let tone = tones.sender.nextPacket(timestamp: stream.sender.nextTimestamp) else { return nil }
        return stream.sender.makePacket(
            payload: tone.payload.bytes[...], payloadType: events.send, timestamp: tone.timestamp,
            marker: tone.isMarker)
    }

    /// The frame to send: the port's audio while sending audio unmuted, else silence.
    private func captureFrame(
        for stream: NegotiatedStream, at instant: MediaInstant, audio: inout some MediaAudioPort
    ) -> MediaAudioFrame {
        let format = stream.encoder.format
        let count = stream.encoder.samplesPerFrame
        if activity.sending == .audio, !isMuted, let captured = audio.capture(count: count, format: format),
            captured.count == count
        {
            return MediaAudioFrame(samples: captured, format: format, origin: .media, instant: instant)
        }
        return MediaAudioFrame(samples: silence(count), format: format, origin: .silence, instant: instant)
    }

    /// One packet interval of playout: the jitter buffer's frame decoded, or concealed, or silence; handed
    /// out while playout is on. The decoder runs either way, so its state is current when playout starts.
    mutating func playFrame(
        at instant: MediaInstant, from stream: inout NegotiatedStream, audio: inout some MediaAudioPort
    ) {
        let decoded = decodeNext(from: &stream, at: instant)
        guard activity.isPlayingOut else { return }
        let format = stream.decoder.format
        let samples = decoded?.samples ?? silence(format.samplesPerChannel(milliseconds: 20))
        audio.play(
            MediaAudioFrame(samples: samples, format: format, origin: decoded?.origin ?? .silence, instant: instant))
    }

    /// What the jitter buffer and the decoder make of this interval; `nil` for silence.
    private mutating func decodeNext(from stream: inout NegotiatedStream, at instant: MediaInstant)
        -> (samples: [Int16], origin: MediaAudioFrame.Origin)?
    {
        guard let reception = stream.reception else { return nil }
        switch reception.jitter.pull(at: instant) {
        case .frame(let frame):
            if let samples = try? stream.decoder.decode(frame.payload) { return (samples, .media) }
            return (stream.decoder.concealLoss(next: nil), .concealment)
        case .missing(_, _, let next):
            counters.concealed &+= 1
            return (stream.decoder.concealLoss(next: next?.payload), .concealment)
        case .expand:
            counters.concealed &+= 1
            return (stream.decoder.concealLoss(next: nil), .concealment)
        case .silence, .idle:
            return nil
        }
    }

    private mutating func transmit(_ packet: RTPPacket, of stream: NegotiatedStream, to destination: Address) {
        guard let bytes = stream.protect(packet) else { return }
        send(bytes, to: destination, from: .rtp)
        counters.packetsSent &+= 1
        counters.bytesSent &+= UInt64(bytes.count)
    }

    private func silence(_ count: Int) -> [Int16] { [Int16](repeating: 0, count: count) }
}
