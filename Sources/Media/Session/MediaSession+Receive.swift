extension MediaSession {
    /// Takes one datagram that arrived on one of the stream's ports.
    ///
    /// It is demultiplexed by its first byte (RFC 7983): RTP and RTCP go through SRTP, the statistics and
    /// the latch to the jitter buffer, the telephone-event receiver and the RTCP session; STUN, DTLS and
    /// TURN ChannelData go to their ``seams``; everything else is dropped and counted. Malformed, oversized,
    /// unauthenticated and unexpected packets are dropped and counted in ``statistics``.
    /// - Parameters:
    ///   - datagram: the datagram as read from the socket.
    ///   - source: the address it came from.
    ///   - port: the local port it came in on.
    ///   - now: when it arrived, on the driver's monotonic clock.
    public mutating func receive(_ datagram: [UInt8], from source: Address, on port: MediaPort, at now: MediaInstant) {
        guard !isClosed else { return }
        guard datagram.count <= configuration.maximumDatagramSize else {
            counters.oversized &+= 1
            return
        }
        let kind = MediaDatagramKind(classifying: datagram)
        guard kind == .rtp || kind == .rtcp else {
            let handler = seamStorage?.seams.handler(for: kind)
            counters.demultiplexed.count(kind, isDropped: handler == nil)
            for reply in handler?(datagram, source, port, now) ?? [] {
                send(reply.bytes, to: reply.destination, from: reply.port)
            }
            return
        }
        counters.demultiplexed.count(kind, isDropped: false)
        guard var stream = takeStream() else {
            counters.unconfigured &+= 1
            return
        }
        if kind == .rtcp {
            receiveRTCP(datagram, from: source, on: port, at: now, into: &stream)
        } else if port == .rtp {
            receiveRTP(datagram, from: source, at: now, into: &stream)
        } else {
            counters.malformed &+= 1
        }
        restore(stream)
    }

    private mutating func receiveRTP(
        _ datagram: [UInt8], from source: Address, at now: MediaInstant, into stream: inout NegotiatedStream
    ) {
        var bytes = datagram
        guard stream.isKeyed else {
            counters.srtpFailures &+= 1
            return
        }
        if let inbound = stream.inbound {
            guard (try? inbound.unprotect(&bytes)) != nil else {
                counters.srtpFailures &+= 1
                return
            }
        }
        guard let packet = try? RTPPacket(parsing: bytes) else {
            counters.malformed &+= 1
            return
        }
        let isTone = stream.telephoneEvent?.receive == packet.payloadType
        guard isTone || packet.payloadType == stream.receivePayloadType else {
            counters.unexpectedPayloadType &+= 1
            return
        }
        guard latch(source, on: .rtp, at: now) else { return }
        watch.lastReceived = now
        counters.bytesReceived &+= UInt64(datagram.count)
        if isTone {
            receiveTone(packet, size: datagram.count, at: now, into: &stream)
        } else {
            receiveAudio(packet, size: datagram.count, at: now, into: &stream)
        }
    }

    private mutating func receiveAudio(
        _ packet: RTPPacket, size: Int, at now: MediaInstant, into stream: inout NegotiatedStream
    ) {
        // Counted even when dropped unplayed (held, sendonly): it was received (RFC 3550 A.3), so a packet
        // that crossed the hold's answer leaves no gap, and no loss, once the call resumes.
        let reception = reception(of: &stream)
        let verdict = reception.receiver.receive(packet, size: size, at: now, includeInJitter: stream.receives)
        if case .newSource(let previous) = verdict, previous != nil { reception.toneReceiver.reset() }
        guard stream.receives else {
            counters.notReceiving &+= 1
            return
        }
        guard verdict.isPlayable else { return }
        if case .late = reception.jitter.put(packet, at: now) { counters.lateDropped &+= 1 }
    }

    private mutating func receiveTone(
        _ packet: RTPPacket, size: Int, at now: MediaInstant, into stream: inout NegotiatedStream
    ) {
        // Telephone-events repeat their start timestamp: they are counted, but kept out of the jitter.
        let reception = reception(of: &stream)
        _ = reception.receiver.receive(packet, size: size, at: now, includeInJitter: false)
        guard let reports = try? reception.toneReceiver.receive(packet, now: now.sinceOrigin) else {
            counters.malformed &+= 1
            return
        }
        for report in reports where report.phase == .began {
            guard let digit = report.digit else { continue }
            counters.dtmfReceived &+= 1
            self.report(.dtmf(digit))
        }
    }

    private mutating func receiveRTCP(
        _ datagram: [UInt8], from source: Address, on port: MediaPort, at now: MediaInstant,
        into stream: inout NegotiatedStream
    ) {
        var bytes = datagram
        guard stream.isKeyed else {
            counters.srtpFailures &+= 1
            return
        }
        if let inbound = stream.inbound {
            guard (try? inbound.unprotectRTCP(&bytes)) != nil else {
                counters.srtpFailures &+= 1
                return
            }
        }
        guard let compound = try? RTCPCompoundPacket(parsing: bytes) else {
            counters.malformed &+= 1
            return
        }
        // Without rtcp-mux, RTCP latches its own port (symmetric RTCP, RFC 4961 §3).
        if port == .rtcp && !stream.isRTCPMuxed { guard latch(source, on: .rtcp, at: now) else { return } }
        clock.set(now)
        let sender = stream.sender
        var rtcp = stream.rtcp
        let reception = stream.withReceiver {
            rtcp.receive(compound, size: datagram.count, sender: sender, receiver: &$0)
        }
        stream.rtcp = rtcp
        counters.rtcpReceived &+= 1
        // A peer in DTX sends no RTP in silence, but its reports go on: it is still there.
        if stream.isReceivingDTX { watch.lastReceived = now }
        if let goodbye = reception.goodbye {
            report(.goodbye(reason: goodbye.reason.map { String(decoding: $0, as: UTF8.self) }))
        }
    }

    /// Runs an authenticated packet's source through the port's latch; false when it is refused.
    private mutating func latch(_ source: Address, on port: MediaPort, at now: MediaInstant) -> Bool {
        guard isLatching else { return true }
        let before = port == .rtp ? rtpLatch.destination : rtcpLatch.destination
        let decision =
            port == .rtp
            ? rtpLatch.authenticatedPacket(from: source, at: now) : rtcpLatch.authenticatedPacket(from: source, at: now)
        switch decision {
        case .accept:
            return true
        case .latched(let address):
            if address != before { report(.latched(address, port: port)) }
            return true
        case .reject:
            counters.rejectedSource &+= 1
            return false
        }
    }
}

extension MediaInstant {
    /// The instant as a duration since the clock's origin (the RFC 4733 receiver's time base).
    var sinceOrigin: Duration { .nanoseconds(nanoseconds) }
}
