import Dispatch
import Foundation
import Switchboard

/// The call event lines of CLI.md, shared by `call` and `answer`.
enum CallOutput {
    static func connected(_ call: Call, printer: EventPrinter) {
        printer.emit(
            "connected",
            [
                ("codec", .string(call.codec ?? "none")), ("srtp", .bool(call.isSecure)),
            ] + keys(call) + [("transport", .string(call.transport?.rawValue ?? "none"))] + mediaPath(call.mediaPath))
    }

    /// `keying=sdes|dtls suite=aes-cm-80|aes-cm-32|aes-gcm-128` after `srtp=yes` (nothing for plain RTP).
    static func keys(_ call: Call) -> [(String, EventValue)] {
        guard call.isSecure, let keying = call.srtpKeying else { return [] }
        return [("keying", .string(keying.rawValue)), ("suite", .string(call.srtpSuite?.rawValue ?? "none"))]
    }

    /// `ice=host|srflx|prflx|relay local=ADDR:PORT remote=ADDR:PORT` for a call whose media ICE set up, the
    /// keys that end the `connected` and `summary` lines (nothing without ICE).
    static func mediaPath(_ path: CallMediaPath?) -> [(String, EventValue)] {
        guard let path else { return [] }
        return [
            ("ice", .string(path.candidateType.rawValue)), ("local", .string(path.localAddress)),
            ("remote", .string(path.remoteAddress)),
        ]
    }

    /// `media-path ice=... local=... remote=...`: ICE selected another pair mid-call (a restart).
    static func mediaPathChanged(_ path: CallMediaPath, printer: EventPrinter) {
        printer.emit("media-path", mediaPath(path))
    }

    /// `ringing status=18x`, and `early-media status=18x codec=NAME` when that provisional brought an early
    /// answer (the call's media then plays and records before the answer).
    static func ringing(status: Int, earlyMediaCodec codec: String?, hasEarlyMedia: Bool, printer: EventPrinter) {
        printer.emit("ringing", [("status", .int(status))])
        if hasEarlyMedia {
            printer.emit("early-media", [("status", .int(status)), ("codec", .string(codec ?? "none"))])
        }
    }

    /// `transferred to=URI`: the other side transferred the call and a new call to URI was placed.
    static func transferred(to target: Handle, printer: EventPrinter) {
        printer.emit("transferred", [("to", .string(target.value))])
    }

    static func ended(_ call: Call, _ details: CallEndDetails, printer: EventPrinter) {
        printer.emit(
            "ended",
            [
                ("reason", .string(details.reason.rawValue)), ("status", .int(details.statusCode ?? 0)),
                ("phrase", .string(details.reasonPhrase ?? "")),
            ] + (details.mediaSecurityFailure.map { [("dtls", .string($0.kind.rawValue))] } ?? []))
        summary(call, details, printer: printer)
    }

    /// The `summary` line: end reason and status, duration, codec, SRTP, packets, loss, jitter, MOS.
    static func summary(_ call: Call, _ details: CallEndDetails, printer: EventPrinter) {
        let quality = call.quality ?? CallQuality()
        printer.emit(
            "summary",
            [
                ("reason", .string(details.reason.rawValue)), ("status", .int(details.statusCode ?? 0)),
                ("duration", .double(call.duration, decimals: 3)), ("codec", .string(call.codec ?? "none")),
                ("srtp", .bool(call.isSecure)), ("tx", .int(quality.packetsSent)),
                ("rx", .int(quality.packetsReceived)), ("loss", .double(quality.lossFraction, decimals: 3)),
                ("jitter_ms", .double(quality.jitterMilliseconds, decimals: 1)),
                ("mos", .double(quality.meanOpinionScore, decimals: 2)),
            ] + mediaPath(call.mediaPath))
    }

    /// Whether a call "connected and ended normally" (CLI.md): it connected, and it ended by a BYE from
    /// either side.
    static func endedNormally(_ call: Call, _ details: CallEndDetails) -> Bool {
        call.connectedAt != nil && (details.reason == .remoteEnded || details.reason == .localEnded)
    }
}

/// The live status line on a terminal (stderr only, so stdout keeps its event lines): state, codec, SRTP,
/// duration, jitter, loss and MOS of one call, redrawn every second until `stop`.
final class LiveStatus: @unchecked Sendable {
    // @unchecked Sendable: `timer` is set once in init and only cancelled afterwards; DispatchSource's
    // methods are thread-safe, it is just not annotated.
    private let timer: (any DispatchSourceTimer)?
    private let isTerminal: Bool

    init(provider: CallProvider, call: UUID) {
        isTerminal = isatty(2) != 0
        guard isTerminal else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "switchboard.status"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler {
            guard let snapshot = provider.call(with: call) else { return }
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + LiveStatus.line(snapshot)).utf8))
        }
        timer.resume()
        self.timer = timer
    }

    /// The line: `connected opus SRTP 00:42 jitter 1.2 ms loss 0.0% MOS 4.39`.
    static func line(_ call: Call, now: Date = Date()) -> String {
        let seconds = Int(now.timeIntervalSince(call.connectedAt ?? call.startedAt))
        let clock = String(format: "%02d:%02d", seconds / 60, seconds % 60)
        var parts = ["\(call.state)", call.codec ?? "-", call.isSecure ? "SRTP" : "RTP", clock]
        if call.isOnHold { parts.append("on hold") }
        if let quality = call.quality {
            parts.append(String(format: "jitter %.1f ms", quality.jitterMilliseconds))
            parts.append(String(format: "loss %.1f%%", quality.lossFraction * 100))
            parts.append(String(format: "MOS %.2f", quality.meanOpinionScore))
        }
        return parts.joined(separator: " ")
    }

    /// Stops redrawing and clears the line.
    func stop() {
        guard let timer else { return }
        timer.cancel()
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
