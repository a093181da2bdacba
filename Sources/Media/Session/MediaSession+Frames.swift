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
        let format = stream.encoder.format
        let count = stream.encoder.samplesPerFrame
        if let events = stream.telephoneEvent, !stream.tones.isIdle,
            let tone = stream.tones.nextPacket(timestamp: stream.sender.nextTimestamp)
        {
            let packet = stream.sender.makePacket(
                payload: tone.payload.bytes[...], payloadType: events.send, timestamp: tone.timestamp,
                marker: tone.isMarker)
            transmit(packet, of: stream, to: destination)
            stream.sender.skip(samples: stream.samplesPerPacket, at: instant)
            audio.didSend(MediaAudioFrame(samples: silence(count), format: format, origin: .silence, instant: instant))
            return
        }
        var samples = silence(count)
        var origin = MediaAudioFrame.Origin.silence
        if activity.sending == .audio, !isMuted, let captured = audio.capture(count: count, format: format),
            captured.count == count
        {
            samples = captured
            origin = .media
        }
        guard let payload = try? stream.encoder.encode(samples) else {
            stream.sender.skip(samples: stream.samplesPerPacket, at: instant)
            return
        }
        let packet = stream.sender.packet(payload: payload[...], samples: stream.samplesPerPacket, at: instant)
        transmit(packet, of: stream, to: destination)
        audio.didSend(MediaAudioFrame(samples: samples, format: format, origin: origin, instant: instant))
    }

    /// One packet interval of playout: the jitter buffer's frame decoded, or concealed, or silence; handed
    /// out while playout is on. The decoder runs either way, so its state is current when playout starts.
    mutating func playFrame(
        at instant: MediaInstant, from stream: inout NegotiatedStream, audio: inout some MediaAudioPort
    ) {
        var samples: [Int16]?
        var origin = MediaAudioFrame.Origin.concealment
        switch stream.jitter.pull(at: instant) {
        case .frame(let frame):
            samples = try? stream.decoder.decode(frame.payload)
            if samples == nil {
                samples = stream.decoder.concealLoss(next: nil)
            } else {
                origin = .media
            }
        case .missing(_, _, let next):
            samples = stream.decoder.concealLoss(next: next?.payload)
            counters.concealed += 1
        case .expand:
            samples = stream.decoder.concealLoss(next: nil)
            counters.concealed += 1
        case .silence, .idle:
            samples = nil
        }
        guard activity.isPlayingOut else { return }
        let format = stream.decoder.format
        let frame =
            samples.map { MediaAudioFrame(samples: $0, format: format, origin: origin, instant: instant) }
            ?? MediaAudioFrame(
                samples: silence(format.samplesPerChannel(milliseconds: 20)), format: format, origin: .silence,
                instant: instant)
        audio.play(frame)
    }

    private mutating func transmit(_ packet: RTPPacket, of stream: NegotiatedStream, to destination: Address) {
        guard let bytes = stream.protect(packet) else { return }
        send(bytes, to: destination, from: .rtp)
        counters.packetsSent += 1
        counters.bytesSent += bytes.count
    }

    private func silence(_ count: Int) -> [Int16] { [Int16](repeating: 0, count: count) }
}
