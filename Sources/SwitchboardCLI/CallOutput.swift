import Foundation
import Switchboard

/// The call event lines of CLI.md, shared by `call` and `answer`.
enum CallOutput {
    static func connected(_ call: Call, printer: EventPrinter) {
        printer.emit(
            "connected", [("codec", .string(call.codec ?? "none")), ("srtp", .bool(call.isSecure))])
    }

    static func ended(_ call: Call, _ details: CallEndDetails, printer: EventPrinter) {
        printer.emit(
            "ended",
            [
                ("reason", .string(details.reason.rawValue)), ("status", .int(details.statusCode ?? 0)),
                ("phrase", .string(details.reasonPhrase ?? "")),
            ])
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
            ])
    }

    /// Whether a call "connected and ended normally" (CLI.md): it connected, and it ended by a BYE from
    /// either side.
    static func endedNormally(_ call: Call, _ details: CallEndDetails) -> Bool {
        call.connectedAt != nil && (details.reason == .remoteEnded || details.reason == .localEnded)
    }
}
