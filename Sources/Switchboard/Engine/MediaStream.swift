import Foundation
import Media
import SDP
import SIPTransport
import Synchronization

/// What a media stream reports back to the signalling side.
struct MediaStreamEvents: Sendable {
    /// A digit received as RFC 4733 telephone-events (once per event).
    var dtmf: @Sendable (Character) -> Void = { _ in }
    /// No packet arrived for the configured media timeout.
    var timedOut: @Sendable () -> Void = {}
}

/// The figures of one stream, copied out for `Call.quality` and the CLI's summary.
struct MediaFigures: Sendable, Hashable {
    var packetsSent = 0
    var bytesSent = 0
    var packetsReceived = 0
    var bytesReceived = 0
    var packetsLost = 0
    var expected = 0
    var jitterMilliseconds = 0.0
    var roundTripMilliseconds: Double?
    var lateDropped = 0
    var concealed = 0
    var playoutDelayMilliseconds = 0.0
    var srtpFailures = 0
    var codec: String?
    var dtmfSent = 0
    var dtmfReceived = 0

    var lossFraction: Double { expected > 0 ? Double(max(0, packetsLost)) / Double(expected) : 0 }
}

/// One call's audio: 20 ms pacing from the monotonic clock; source → encoder → RTP → SRTP → socket, and
/// socket → SRTP → RTP statistics → jitter buffer → decoder → sink; RFC 4733 both ways; RTCP reports.
///
/// Confined to the media loop: every method except `figures` runs on it.
final class MediaStream: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is touched only on `loop` (the engine posts every call there);
    // the figures other threads read are behind a Mutex.

    private struct Negotiated {
        var kind: AudioCodecKind
        var encoder: any AudioEncoder
        var decoder: any AudioDecoder
        var sender: RTPSender
        var receiver: RTPReceiver
        var jitter: JitterBuffer
        var payloadType: UInt8
        var receivePayloadType: UInt8
        var telephoneEvent: (send: UInt8, receive: UInt8)?
        var tones: TelephoneEventSender
        var outbound: SRTPContext?
        var inbound: SRTPContext?
        var sends: Bool
        var receives: Bool
        var rtcpMux: Bool
        var rtcpAddress: SocketAddress?
        var signature: NegotiatedSession
    }

    let loop: any EventLoopProtocol
    let rtp: DatagramSocket
    let rtcpSocket: DatagramSocket
    /// Takes the sockets when the stream closes (the engine pools them; by default they are closed).
    private let release: (DatagramSocket, DatagramSocket) -> Void
    private let events: MediaStreamEvents
    private let clock: any MediaClock
    private let frameDuration = Duration.milliseconds(20)
    private let mediaTimeout: Duration?
    private let cname: String
    private var negotiated: Negotiated?
    private var latch = SymmetricRTPLatch<SocketAddress>(signalledAddress: nil)
    private var rtcp: RTCPSession?
    private var toneReceiver = TelephoneEventReceiver()
    private var audio: CallAudio
    private var source: (any AudioSource)?
    private var sink: (any AudioSink)?
    private var recording: (path: String, writer: WAVFileWriter)?
    private var isActive = false
    /// Early media: plays and records as if active, sends nothing (`setEarlyMedia`).
    private var isEarly = false
    private var isMuted = false
    private var pendingDigits: [DTMFDigit] = []
    private var start: MediaInstant?
    private var ticks: Int64 = 0
    private var timer: TimerHandle?
    private var lastReceived: MediaInstant?
    /// Since when packets have been due without a break (the media timeout's origin), `nil` while none are.
    private var expectingSince: MediaInstant?
    /// The largest datagram read (longer ones are truncated); the buffer is a temporary on the loop's stack,
    /// so an idle stream keeps none.
    private static let receiveCapacity = 2048
    private var isClosed = false
    private var local = MediaFigures()
    private let shared = Mutex(MediaFigures())
    /// SSRC, first sequence number and timestamp: from the shared getrandom buffer (a system call each otherwise).
    private var generator: EngineRandomGenerator

    /// The local RTP port.
    var port: UInt16 { rtp.localAddress.port }

    init(
        loop: any EventLoopProtocol, clock: any MediaClock, random: EngineRandom,
        sockets: (rtp: DatagramSocket, rtcp: DatagramSocket), audio: CallAudio,
        mediaTimeout: Duration?, events: MediaStreamEvents,
        release: @escaping (DatagramSocket, DatagramSocket) -> Void = {
            $0.close(); $1.close()
        }
    ) {
        self.release = release
        self.loop = loop
        self.clock = clock
        self.generator = random.generator
        rtp = sockets.rtp
        rtcpSocket = sockets.rtcp
        self.audio = audio
        self.mediaTimeout = mediaTimeout
        self.events = events
        cname = String(random.word(), radix: 36) + "@switchboard"
    }

    /// The figures so far (any thread).
    var figures: MediaFigures { shared.withLock { $0 } }

    // MARK: Control (media loop)

    /// Starts receiving and pacing. Until `configure` there is nothing to send or play.
    func open() {
        do throws(TransportError) {
            try rtp.watch(on: loop) { [weak self] in self?.readRTP() }
            try rtcpSocket.watch(on: loop) { [weak self] in self?.readRTCP() }
        } catch {
            return
        }
        start = clock.now()
        scheduleTick()
    }

    /// Applies a negotiated session (the first answer, or a re-offer's). A change of codec, keys or
    /// address rebuilds the codec state; a change of direction only toggles sending and receiving.
    func configure(_ session: NegotiatedSession) {
        guard !isClosed else { return }
        let remote = session.remoteRTPAddress.flatMap { SocketAddress(ip: $0.host, port: $0.port) }
        let rtcpRemote = session.remoteRTCPAddress.flatMap { SocketAddress(ip: $0.host, port: $0.port) }
        let sends = session.direction == .sendrecv || session.direction == .sendonly
        let receives = session.direction == .sendrecv || session.direction == .recvonly
        if var current = negotiated, sameMedia(current.signature, session) {
            current.sends = sends && remote != nil
            current.receives = receives
            current.signature = session
            negotiated = current
            return
        }
        guard let kind = AudioCodecKind(session.codec) else { return }
        let packetTime = min(max(session.remotePacketTime ?? 20, 10), 60) / 10 * 10
        do {
            let encoder = try kind.makeEncoder(
                remoteFormatParameters: session.codec.sendFormatParameters, packetTime: 20)
            let decoder = try kind.makeDecoder(packetTime: packetTime)
            var keys: (outbound: SRTPContext, inbound: SRTPContext)?
            if let parameters = session.srtp { keys = try SRTPContext.pair(for: parameters) }
            let clockRate = session.codec.clockRate
            var sender = RTPSender(
                payloadType: session.codec.sendPayloadType, clockRate: clockRate, using: &generator)
            if let previous = negotiated?.sender {
                // Keep the SSRC and sequence across a re-negotiation (RFC 3550 §8: a new codec is not a
                // new source).
                sender = previous
                sender.payloadType = session.codec.sendPayloadType
                if previous.clockRate != clockRate {
                    sender = RTPSender(
                        payloadType: session.codec.sendPayloadType, clockRate: clockRate, using: &generator)
                }
            }
            // A re-negotiation at the same clock rate keeps the receive statistics and the buffer.
            let sameClock = negotiated?.sender.clockRate == clockRate
            let receiver = sameClock ? negotiated?.receiver : nil
            let jitter =
                (sameClock ? negotiated?.jitter : nil)
                ?? JitterBuffer(
                    configuration: JitterBufferConfiguration(
                        clockRate: clockRate, frameSamples: UInt32(encoder.timestampIncrement)))
            let events = session.telephoneEvent.map { ($0.sendPayloadType, $0.receivePayloadType) }
            negotiated = Negotiated(
                kind: kind, encoder: encoder, decoder: decoder, sender: sender,
                receiver: receiver ?? RTPReceiver(clockRate: clockRate), jitter: jitter,
                payloadType: session.codec.sendPayloadType, receivePayloadType: session.codec.receivePayloadType,
                telephoneEvent: events,
                tones: TelephoneEventSender(clockRate: Int(session.telephoneEvent?.clockRate ?? clockRate)),
                outbound: keys?.outbound, inbound: keys?.inbound, sends: sends && remote != nil,
                receives: receives, rtcpMux: session.isRTCPMuxed, rtcpAddress: rtcpRemote, signature: session)
            toneReceiver.reset()
            local.codec = session.codec.encodingName
        } catch {
            negotiated = nil
            return
        }
        latch.reset(signalledAddress: remote)
        rtcp = RTCPSession(
            configuration: RTCPConfiguration(cname: cname, sessionBandwidth: 64_000), clock: clock,
            random: generator)
        prepareAudio()
        publish()
    }

    /// Replaces the audio (before or during the call).
    func setAudio(_ audio: CallAudio) {
        self.audio = audio
        if negotiated != nil { prepareAudio() }
    }

    /// Takes incoming media from now on, ahead of the answer: a resume's re-offer asks to receive, and
    /// RFC 3264 §5.1 has the offerer ready for that media once the offer is sent (the peer may send it
    /// before its 200 OK reaches us). The answer's `configure` then sets the negotiated direction.
    func prepareToReceive() {
        guard !isClosed, var current = negotiated else { return }
        current.receives = true
        negotiated = current
    }

    /// Audio activation: until then the stream sends silence and plays nothing.
    func setActive(_ active: Bool) { isActive = active }

    /// Early media (the signalling side decides when): what arrives is played and recorded as on an active
    /// stream, and nothing is sent, not even silence, until `setEarlyMedia(false)`.
    func setEarlyMedia(_ early: Bool) { isEarly = early }

    /// Mute: silence goes out instead of the source (the source is not read, so a file pauses).
    func setMuted(_ muted: Bool) { isMuted = muted }

    /// Queues digits as RFC 4733 events. Returns false when the peer did not negotiate telephone-event.
    func sendDigits(_ digits: [DTMFDigit]) -> Bool {
        guard var current = negotiated, current.telephoneEvent != nil else { return false }
        current.tones.send(digits)
        negotiated = current
        local.dtmfSent += digits.count
        return true
    }

    /// Whether telephone-event was negotiated.
    var sendsTelephoneEvents: Bool { negotiated?.telephoneEvent != nil }

    /// Sends an RTCP BYE, stops, closes the sockets and the files.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let timer { loop.cancelTimer(timer) }
        if var current = negotiated, var session = rtcp, let destination = rtcpDestination(current) {
            var bytes = session.makeGoodbye(sender: current.sender, receiver: &current.receiver)
            if let outbound = current.outbound { try? outbound.protectRTCP(&bytes) }
            (current.rtcpMux ? rtp : rtcpSocket).send(bytes, to: destination)
        }
        try? recording?.writer.close()
        recording = nil
        source = nil
        sink = nil
        release(rtp, rtcpSocket)
        publish()
    }

    // MARK: Pacing

    private func scheduleTick() {
        guard !isClosed, let start else { return }
        ticks += 1
        let deadline = start + frameDuration * Int(ticks)
        let wait = max(.zero, deadline - clock.now())
        timer = loop.scheduleTimer(after: wait) { [weak self] in self?.tick() }
    }

    private func tick() {
        guard !isClosed else { return }
        let now = clock.now()
        inPlace { current in
            send(&current)
            play(&current, now: now)
            reportIfDue(&current)
        }
        _ = toneReceiver.poll(now: now.sinceOrigin)
        checkMediaTimeout(now: now)
        publish()
        scheduleTick()
    }

    /// The media timeout counts only while packets are due: not before the answer, not while the call is held
    /// (this side sendonly or inactive); each time receiving starts, the wait starts again.
    private func checkMediaTimeout(now: MediaInstant) {
        guard let timeout = mediaTimeout else { return }
        guard negotiated?.receives == true else {
            expectingSince = nil
            return
        }
        let since = expectingSince ?? now
        expectingSince = since
        let last = lastReceived.map { max($0, since) } ?? since
        if now - last > timeout {
            expectingSince = now
            events.timedOut()
        }
    }

    private func send(_ current: inout Negotiated) {
        guard current.sends, !isEarly, let destination = latch.destination else {
            // Nothing goes out, but the clock of the stream moves on (RFC 3550 §5.1 timestamps).
            current.sender.skip(samples: current.encoder.timestampIncrement)
            return
        }
        if let events = current.telephoneEvent, !current.tones.isIdle {
            let timestamp = current.sender.nextTimestamp
            if let tone = current.tones.nextPacket(timestamp: timestamp) {
                var packet = current.sender.makePacket(
                    payload: tone.payload.bytes[...], payloadType: events.send, timestamp: tone.timestamp,
                    marker: tone.isMarker)
                packet.payloadType = events.send
                transmit(packet, &current, to: destination)
            }
            current.sender.skip(samples: current.encoder.timestampIncrement)
            return
        }
        let count = current.encoder.samplesPerFrame
        var frame = [Int16](repeating: 0, count: count)
        if isActive, !isMuted, var source {
            if let samples = try? source.read(samplesPerChannel: count), samples.count == count {
                frame = samples
            }
            self.source = source
        }
        guard let payload = try? current.encoder.encode(frame) else { return }
        let packet = current.sender.packet(payload: payload, samples: current.encoder.timestampIncrement)
        transmit(packet, &current, to: destination)
    }

    private func transmit(_ packet: RTPPacket, _ current: inout Negotiated, to destination: SocketAddress) {
        guard var bytes = try? packet.serialized(reservingCapacity: SRTPContext.maximumTrailerLength) else {
            return
        }
        if let outbound = current.outbound {
            guard (try? outbound.protect(&bytes)) != nil else { return }
        }
        if rtp.send(bytes, to: destination) {
            local.packetsSent += 1
            local.bytesSent += bytes.count
        }
    }

    private func play(_ current: inout Negotiated, now: MediaInstant) {
        let output = current.jitter.pull(at: now)
        var samples: [Int16]?
        switch output {
        case .frame(let frame):
            samples = try? current.decoder.decode(frame.payload)
            if samples == nil { samples = current.decoder.concealLoss(next: nil) }
        case .missing(_, _, let next):
            samples = current.decoder.concealLoss(next: next?.payload)
            local.concealed += 1
        case .expand:
            samples = current.decoder.concealLoss(next: nil)
            local.concealed += 1
        case .silence:
            samples = [Int16](repeating: 0, count: current.encoder.samplesPerFrame)
        case .idle:
            samples = nil
        }
        guard isActive || isEarly, var sink else { return }
        // Silence fills the gaps (before the first packet, on hold) so a recording keeps the call's time.
        let frame = current.decoder.format.samplesPerChannel(milliseconds: 20)
        try? sink.write(samples ?? [Int16](repeating: 0, count: frame))
        self.sink = sink
    }

    private func reportIfDue(_ current: inout Negotiated) {
        guard var session = rtcp, clock.now() >= session.nextReportTime else { return }
        if var bytes = session.timerExpired(sender: current.sender, receiver: &current.receiver),
            let destination = rtcpDestination(current)
        {
            if let outbound = current.outbound {
                guard (try? outbound.protectRTCP(&bytes)) != nil else {
                    rtcp = session
                    return
                }
            }
            (current.rtcpMux ? rtp : rtcpSocket).send(bytes, to: destination)
        }
        rtcp = session
    }

    private func rtcpDestination(_ current: Negotiated) -> SocketAddress? {
        if current.rtcpMux { return latch.destination }
        return current.rtcpAddress ?? latch.destination.map { $0.with(port: $0.port &+ 1) }
    }

    // MARK: Receiving

    private func readRTP() {
        withUnsafeTemporaryAllocation(byteCount: MediaStream.receiveCapacity, alignment: 1) { buffer in
            for _ in 0..<64 {
                guard let (count, from) = rtp.receive(into: buffer) else { return }
                guard count > 0, count <= buffer.count else { continue }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                switch MediaPacketKind(classifying: bytes) {
                case .rtp: receivedRTP(Array(bytes), from: from)
                case .rtcp: receivedRTCP(Array(bytes))
                default: continue
                }
            }
        }
    }

    private func readRTCP() {
        withUnsafeTemporaryAllocation(byteCount: MediaStream.receiveCapacity, alignment: 1) { buffer in
            for _ in 0..<16 {
                guard let (count, _) = rtcpSocket.receive(into: buffer) else { return }
                guard count > 0, count <= buffer.count else { continue }
                receivedRTCP(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
            }
        }
    }

    /// Runs `body` on the negotiated stream in place: taken out of the optional first, so its buffers (the
    /// jitter buffer's arrays) are not copied on write for every packet.
    private func inPlace(_ body: (inout Negotiated) -> Void) {
        guard var current = negotiated.take() else { return }
        body(&current)
        negotiated = current
    }

    private func receivedRTP(_ datagram: [UInt8], from: SocketAddress) {
        inPlace { current in receivedRTP(datagram, from: from, on: &current) }
    }

    private func receivedRTP(_ datagram: [UInt8], from: SocketAddress, on current: inout Negotiated) {
        var bytes = datagram
        if let inbound = current.inbound {
            guard (try? inbound.unprotect(&bytes)) != nil else {
                local.srtpFailures += 1
                return
            }
        }
        guard let packet = try? RTPPacket(parsing: bytes) else { return }
        let now = clock.now()
        lastReceived = now
        _ = latch.authenticatedPacket(from: from, at: now)
        local.bytesReceived += datagram.count
        if let tones = current.telephoneEvent, packet.payloadType == tones.receive {
            _ = current.receiver.receive(packet, size: datagram.count, at: now, includeInJitter: false)
            let reports =
                (try? toneReceiver.receive(packet.payload, timestamp: packet.timestamp, now: now.sinceOrigin)) ?? []
            for report in reports where report.phase == .began {
                if let digit = report.digit {
                    local.dtmfReceived += 1
                    events.dtmf(digit.character)
                }
            }
            return
        }
        guard packet.payloadType == current.receivePayloadType, current.receives else { return }
        let verdict = current.receiver.receive(packet, size: datagram.count, at: now)
        if verdict.isPlayable {
            if case .late = current.jitter.put(packet, at: now) { local.lateDropped += 1 }
        }
    }

    private func receivedRTCP(_ datagram: [UInt8]) {
        inPlace { current in receivedRTCP(datagram, on: &current) }
    }

    private func receivedRTCP(_ datagram: [UInt8], on current: inout Negotiated) {
        guard var session = rtcp else { return }
        var bytes = datagram
        if let inbound = current.inbound {
            guard (try? inbound.unprotectRTCP(&bytes)) != nil else {
                local.srtpFailures += 1
                return
            }
        }
        guard let compound = try? RTCPCompoundPacket(parsing: bytes) else { return }
        _ = session.receive(compound, size: datagram.count, sender: current.sender, receiver: &current.receiver)
        rtcp = session
    }

    // MARK: Helpers

    private func sameMedia(_ a: NegotiatedSession, _ b: NegotiatedSession) -> Bool {
        a.codec == b.codec && a.srtp == b.srtp && a.remoteRTPAddress == b.remoteRTPAddress
            && a.telephoneEvent == b.telephoneEvent && a.isRTCPMuxed == b.isRTCPMuxed
    }

    /// Builds the source and sink for the codec's format from `audio`.
    private func prepareAudio() {
        guard let current = negotiated else { return }
        let codecFormat = current.encoder.format
        let rate = audio.sampleRate.flatMap { [8000, 16000, 48000].contains($0) ? $0 : nil } ?? codecFormat.sampleRate
        let appFormat = AudioFormat(sampleRate: rate)
        switch audio.input {
        case .silence:
            source = SilenceSource(format: codecFormat)
        case .tone(let frequency, let level):
            source = ToneSource(frequency: frequency, level: level, format: codecFormat)
        case .file(let path, let loops):
            source = try? WAVFileSource(path: path, format: codecFormat, isLooping: loops)
        case .samples(let produce):
            // The app's `nil` means silence for now, not the end of the source.
            let frames = CallbackSource(format: appFormat) { count in
                produce(count) ?? [Int16](repeating: 0, count: count)
            }
            source = ConvertingSource(frames, format: codecFormat)
        }
        let decodedFormat = current.decoder.format
        switch audio.output {
        case .discard:
            sink = NullSink(format: decodedFormat)
        case .file(let path):
            // One writer per path for the whole call: re-negotiation must not truncate the recording.
            if recording?.path != path {
                try? recording?.writer.close()
                recording = (try? WAVFileWriter(path: path, format: appFormat)).map { (path, $0) }
            }
            sink = recording.map { ConvertingSink($0.writer, format: decodedFormat) }
        case .samples(let consume):
            sink = ConvertingSink(CallbackSink(format: appFormat, consume: consume), format: decodedFormat)
        }
    }

    private func publish() {
        guard let current = negotiated else {
            shared.withLock { $0 = local }
            return
        }
        var figures = local
        if let source = current.receiver.source {
            figures.packetsReceived = Int(source.validPackets)
            figures.packetsLost = Int(source.cumulativeLost)
            figures.expected = Int(source.expectedPackets)
            figures.jitterMilliseconds = source.jitterMilliseconds
        }
        if let rtt = rtcp?.roundTripTime {
            let (seconds, attoseconds) = rtt.components
            figures.roundTripMilliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }
        let statistics = current.jitter.statistics
        let (seconds, attoseconds) = statistics.playoutDelay.components
        figures.playoutDelayMilliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        shared.withLock { $0 = figures }
    }
}

extension MediaInstant {
    /// The instant as a duration since the clock's origin (the RFC 4733 receiver's time base).
    fileprivate var sinceOrigin: Duration { .nanoseconds(nanoseconds) }
}
