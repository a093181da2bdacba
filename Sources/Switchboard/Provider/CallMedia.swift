import Foundation
import Media
import SDP
import SIPTransport
import SIPUserAgent

/// The calls' media streams, one per session that has one, kept in step with each call's record: opened
/// when a session's offer or answer is built, configured by every negotiated session, switched for early
/// media, activation, hold, mute and DTMF, read for quality, and closed when the call ends. Every change
/// runs on the media loop.
///
/// A class: the coordinator keeps one for the provider's life and calls it for every step of every call, and
/// a struct read from the coordinator's stored property is copied for each such call (a retain and release of
/// every reference in it: the tables, the settings, the engine and the logger).
final class CallMedia {
    /// Where and how streams open.
    struct Settings {
        /// The address SDP announces, when not the signalling one (`CallProviderConfiguration.mediaAddress`).
        var address: String?
        var ports: ClosedRange<UInt16>
        var audio: CallAudio
        var timeout: Duration?
        var usesManualActivation: Bool
        /// `MediaMode.signallingOnly`: no stream opens; SDP announces the discard port.
        var opensStreams: Bool
        /// The DTLS-SRTP identity and timers, when calls may use SRTP.
        var dtls: DTLSCallSettings?

        init(_ configuration: CallProviderConfiguration, dtls: DTLSCallSettings? = nil) {
            self.dtls = dtls
            opensStreams = configuration.mediaMode != .signallingOnly
            address = configuration.mediaAddress
            ports = configuration.mediaPorts
            audio = configuration.audio
            timeout = configuration.mediaTimeout
            usesManualActivation = configuration.usesManualAudioActivation
        }
    }

    private let engine: MediaEngine
    let settings: Settings
    private let logger: Logger
    /// Loop-confined tables whose methods call nothing outside them: no run-time exclusivity checks.
    @exclusivity(unchecked) private var streams = SessionTable<MediaStream>()
    /// The ICE of the sessions that use it.
    @exclusivity(unchecked) private(set) var ice = SessionTable<ICECallState>()

    init(engine: MediaEngine, settings: Settings, logger: Logger) {
        self.engine = engine
        self.settings = settings
        self.logger = logger
    }

    // MARK: Streams

    /// How many sessions have a media stream open.
    var openStreamCount: Int { streams.count }

    /// How many port pairs of ended streams wait in the pool.
    var pooledPairCount: Int { engine.pooledPairCount }
    /// Streams opened on a pooled pair, and on a newly bound one.
    var reusedPairCount: Int { engine.reusedPairCount }
    var boundPairCount: Int { engine.boundPairCount }

    /// Opens the media stream of session `key` and returns the address and port its SDP announces; `nil`
    /// when no port pair is free (logged), so the session refuses or fails the call instead of announcing
    /// port 0.
    func open(_ key: SessionKey, host: String, events: MediaStreamEvents) -> (host: String, port: UInt16)? {
        let address = settings.address ?? host
        // Signalling only: the offer or answer names the discard port (RFC 4566 §5.14's example), no socket.
        guard settings.opensStreams else { return (address, 9) }
        do throws(TransportError) {
            let stream = try engine.open(
                host: address, ports: settings.ports, audio: settings.audio, mediaTimeout: settings.timeout,
                events: events, dtls: settings.dtls)
            streams[key] = stream
            return (address, stream.port)
        } catch {
            logger.error("no media port", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Closes the stream of session `key` (its RTCP BYE goes out, its TURN allocations are deleted).
    func close(_ key: SessionKey) {
        if var state = ice.removeValue(forKey: key) { state.cancelTimers() }
        guard let stream = streams.removeValue(forKey: key) else { return }
        engine.perform { stream.close() }
    }

    /// Whether session `key` has a stream (not so for signalling-only media).
    func hasStream(_ key: SessionKey) -> Bool { streams[key] != nil }

    // MARK: ICE

    /// Starts ICE on session `key`'s stream with `state` (gathering first).
    func startICE(_ key: SessionKey, _ state: ICECallState, plan: ICEPlan, events: ICEDriverEvents) {
        guard let stream = streams[key] else { return }
        ice[key] = state
        engine.startICE(on: stream, plan, events: events)
    }

    /// Changes session `key`'s ICE state on the signalling side.
    func updateICEState(_ key: SessionKey, _ change: (inout ICECallState) -> Void) {
        guard var state = ice[key] else { return }
        change(&state)
        ice[key] = state
    }

    /// Hands the peer's ICE to session `key`'s stream.
    func updateICE(_ key: SessionKey, _ update: RemoteICEUpdate) {
        guard let stream = streams[key] else { return }
        engine.perform { stream.updateICE(update) }
    }

    private func stream(of record: CallRecord) -> MediaStream? { record.session.flatMap { streams[$0] } }

    /// Runs `change` on the media loop with the call's stream, when it has one; returns whether it had.
    @discardableResult
    private func change(_ record: CallRecord, _ change: @escaping @Sendable (MediaStream) -> Void) -> Bool {
        guard let stream = stream(of: record) else { return false }
        engine.perform { change(stream) }
        return true
    }

    // MARK: Calls

    /// Applies a negotiated session to the call's stream (first answer, early media, re-offers), with the
    /// app's audio when the stream does not have it yet.
    func configure(_ session: NegotiatedSession, for record: CallRecord) {
        guard let key = record.session, let stream = streams[key] else { return }
        let audio = record.media.pendingAudio(for: key)
        engine.perform {
            if let audio { stream.setAudio(audio) }
            stream.configure(session)
        }
    }

    /// Sets a call's audio; applied now when its stream has negotiated media, else when media is negotiated.
    func setAudio(_ audio: CallAudio, for record: CallRecord) {
        record.media.setAudio(audio)
        guard let key = record.session, streams[key] != nil, record.call.codec != nil,
            let pending = record.media.pendingAudio(for: key)
        else { return }
        change(record) { $0.setAudio(pending) }
    }

    /// Starts early media on an outgoing call: the stream plays and records what an early dialog sends
    /// (ringback, announcements, IVR prompts), as a softphone must, once audio may run (automatic activation,
    /// or the app asked for it, as CallKit apps do for outgoing calls at start).
    ///
    /// - Forking: one stream follows the most recent early dialog that sent a new SDP answer; each such
    ///   answer reconfigures it (`configure`), and a repeat of an answer already taken changes nothing.
    ///   The dialog whose 2xx arrives takes over at the answer.
    /// - Sending: nothing goes out before the 2xx, not even silence: RFC 3960's gateway model, and what
    ///   softphones do. The early dialog's media is a one-way announcement, a 183 may come from several forks,
    ///   and this side's audio is only for the party that answers.
    func startEarlyMedia(_ record: CallRecord) {
        guard stream(of: record) != nil,
            record.media.startEarlyMedia(state: record.state, manualActivation: settings.usesManualActivation)
        else { return }
        change(record) { $0.setEarlyMedia(true) }
    }

    /// Ends early media (the answer came, or the app deactivated audio): the stream's activation decides again.
    func stopEarlyMedia(_ record: CallRecord) {
        guard record.media.stopEarlyMedia() else { return }
        change(record) { $0.setEarlyMedia(false) }
    }

    func setActive(_ record: CallRecord, _ active: Bool) { change(record) { $0.setActive(active) } }

    /// Resuming: the stream takes media as soon as the re-offer goes out (RFC 3264 §5.1).
    func prepareToReceive(_ record: CallRecord) { change(record) { $0.prepareToReceive() } }

    func setMuted(_ record: CallRecord, _ muted: Bool) { change(record) { $0.setMuted(muted) } }

    /// Sends digits as RFC 4733 events when the peer negotiated telephone-event; returns false when the
    /// caller must send them otherwise (SIP INFO).
    func sendDigits(_ digits: String, on record: CallRecord) -> Bool {
        guard record.media.sendsTelephoneEvents else { return false }
        let tones = digits.compactMap { DTMFDigit($0) }
        return change(record) { _ = $0.sendDigits(tones) }
    }

    /// Copies the stream's figures into the call's snapshot (the last ones, as the call ends).
    func refreshQuality(_ record: CallRecord) {
        if let quality = quality(of: record) { record.call.quality = quality }
    }

    /// The call as the app sees it now, with the stream's figures. The record keeps none: a live call's
    /// figures would cost it an out-of-line box (about 240 bytes) it holds for its whole life.
    func withQuality(_ record: CallRecord) -> Call {
        var call = record.call
        if let quality = quality(of: record) { call.quality = quality }
        return call
    }

    private func quality(of record: CallRecord) -> CallQuality? {
        guard let stream = stream(of: record) else { return nil }
        let figures = stream.figures
        guard let codec = figures.codec else { return nil }
        return CallQuality(figures, codec: codec)
    }
}

extension CallQuality {
    /// Figures as `CallQuality`, with the MOS from the simplified E-model (ITU-T G.107): R = 93.2 − Id −
    /// Ie,eff, Id from the one-way delay (half the RTT, or the playout delay plus 20 ms of packetization
    /// when there is no RTT), Ie,eff from the codec's Ie and Bpl and the loss, then G.107 Annex B's
    /// R-to-MOS curve. Pure.
    init(_ figures: MediaStreamFigures, codec: AudioCodecKind) {
        let oneWay =
            (figures.roundTripMilliseconds.map { $0 / 2 } ?? 0) + figures.playoutDelayMilliseconds + 20
        let mos = EModel.meanOpinionScore(
            codec: codec.impairment, oneWayDelay: oneWay, packetLoss: figures.lossFraction * 100)
        self.init(
            packetsSent: Int(figures.packetsSent), packetsReceived: Int(figures.packetsReceived),
            packetsLost: Int(max(0, figures.packetsLost)), lossFraction: figures.lossFraction,
            jitterMilliseconds: figures.jitterMilliseconds, roundTripMilliseconds: figures.roundTripMilliseconds,
            meanOpinionScore: figures.packetsReceived > 0 ? mos : 1)
    }
}
