import Foundation
import Media
import SDP
import SIPMessage
import SIPUserAgent

/// Calls' media: streams follow the negotiated sessions, audio activation, mute, DTMF and quality.
extension ProviderCore {
    /// Applies a negotiated session to the call's stream (first answer, early media, re-offers).
    func configureMedia(_ session: NegotiatedSession, for record: CallRecord) {
        guard let key = record.session, let stream = streams[key] else { return }
        var pending: CallAudio?
        if let wanted = record.audio, record.audioAppliedTo != key {
            pending = wanted
            record.audioAppliedTo = key
        }
        let audio = pending
        engine.media.perform {
            if let audio { stream.setAudio(audio) }
            stream.configure(session)
        }
    }

    /// Sets a call's audio; applied now when its stream exists, else when media is negotiated.
    func setAudio(_ audio: CallAudio, for uuid: UUID) {
        guard let record = calls[uuid], record.state != .ended else { return }
        record.audio = audio
        record.audioAppliedTo = nil
        if let key = record.session, let stream = streams[key], record.call.codec != nil {
            record.audioAppliedTo = key
            engine.media.perform { stream.setAudio(audio) }
        }
    }

    /// Starts early media on an outgoing call: the stream plays and records what an early dialog sends
    /// (ringback, announcements, IVR prompts), as a softphone must, once audio may run (automatic activation,
    /// or the app asked for it, as CallKit apps do for outgoing calls at start).
    ///
    /// - Forking: one stream follows the most recent early dialog that sent a new SDP answer; each such
    ///   answer reconfigures it (`configureMedia`), and a repeat of an answer already taken changes nothing.
    ///   The dialog whose 2xx arrives takes over at the answer.
    /// - Sending: nothing goes out before the 2xx, not even silence: RFC 3960's gateway model, and what
    ///   softphones do. The early dialog's media is a one-way announcement, a 183 may come from several forks,
    ///   and this side's audio is only for the party that answers.
    func startEarlyMedia(_ record: CallRecord) {
        guard record.hasEarlyMedia, !record.isEarlyMediaPlaying, record.state != .connected, record.state != .ended,
            !configuration.usesManualAudioActivation || record.audioRequested,
            let key = record.session, let stream = streams[key]
        else { return }
        record.isEarlyMediaPlaying = true
        engine.media.perform { stream.setEarlyMedia(true) }
    }

    /// Ends early media (the answer came, or the app deactivated audio): the stream's activation decides again.
    func stopEarlyMedia(_ record: CallRecord) {
        guard record.isEarlyMediaPlaying else { return }
        record.isEarlyMediaPlaying = false
        guard let key = record.session, let stream = streams[key] else { return }
        engine.media.perform { stream.setEarlyMedia(false) }
    }

    func setMediaActive(_ record: CallRecord, _ active: Bool) {
        guard let key = record.session, let stream = streams[key] else { return }
        engine.media.perform { stream.setActive(active) }
    }

    /// Resuming: the stream takes media as soon as the re-offer goes out (RFC 3264 §5.1).
    func prepareMediaToReceive(_ record: CallRecord) {
        guard let key = record.session, let stream = streams[key] else { return }
        engine.media.perform { stream.prepareToReceive() }
    }

    func setMediaMuted(_ record: CallRecord, _ muted: Bool) {
        guard let key = record.session, let stream = streams[key] else { return }
        engine.media.perform { stream.setMuted(muted) }
    }

    /// Sends digits as RFC 4733 events when the peer negotiated telephone-event, else as SIP INFO
    /// (`application/dtmf-relay`).
    func sendDigits(_ digits: String, on record: CallRecord) {
        guard let key = record.session else { return }
        if record.sendsTelephoneEvents, let stream = streams[key] {
            let tones = digits.compactMap { DTMFDigit($0) }
            engine.media.perform { _ = stream.sendDigits(tones) }
            return
        }
        for digit in digits { sessions.sendDTMF(key, digit: digit) }
    }

    func mediaReceivedDigit(_ key: SessionKey, _ digit: Character) {
        guard let uuid = sessionToCall[key], let record = calls[uuid], record.state != .ended else { return }
        emit(.dtmfReceived(record.call, digit: digit))
    }

    func mediaTimedOut(_ key: SessionKey) {
        guard let uuid = sessionToCall[key], let record = calls[uuid], record.state == .connected else { return }
        logger.warning("no media received: ending the call", metadata: ["call": "\(uuid)"])
        // Q.850 cause 102, "recovery on timer expiry": the BYE says why, for the peer's logs and CDRs.
        end(
            uuid, rejectStatus: 480, reason: .failed,
            byeReason: Reason(protocol: "Q.850", cause: 102, text: "media timeout"))
    }

    /// Copies the stream's figures into the call's snapshot.
    func refreshQuality(_ record: CallRecord) {
        guard let key = record.session, let stream = streams[key] else { return }
        let figures = stream.figures
        guard figures.codec != nil else { return }
        record.call.quality = Self.quality(figures)
    }

    /// Figures as `CallQuality`, with the MOS from the simplified E-model (ITU-T G.107): R = 93.2 − Id −
    /// Ie,eff, Id from the one-way delay (half the RTT, or the playout delay plus 20 ms of packetization
    /// when there is no RTT), Ie,eff from the codec's Ie and Bpl and the loss, then G.107 Annex B's
    /// R-to-MOS curve.
    static func quality(_ figures: MediaSessionStatistics) -> CallQuality {
        let kind = figures.codec.flatMap { name in
            AudioCodecKind.allCases.first { $0.sdpCodec.encodingName.lowercased() == name.lowercased() }
        }
        let oneWay =
            (figures.roundTripMilliseconds.map { $0 / 2 } ?? 0) + figures.playoutDelayMilliseconds + 20
        let mos = EModel.meanOpinionScore(
            codec: kind?.impairment ?? .g711, oneWayDelay: oneWay, packetLoss: figures.lossFraction * 100)
        return CallQuality(
            packetsSent: figures.packetsSent, packetsReceived: figures.packetsReceived,
            packetsLost: max(0, figures.packetsLost), lossFraction: figures.lossFraction,
            jitterMilliseconds: figures.jitterMilliseconds, roundTripMilliseconds: figures.roundTripMilliseconds,
            meanOpinionScore: figures.packetsReceived > 0 ? mos : 1)
    }
}
