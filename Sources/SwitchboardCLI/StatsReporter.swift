import CSystem
import Dispatch
import Foundation
import Switchboard

/// `--stats S`: every S seconds one `stats` event with what the provider holds (live calls, call records,
/// sessions, transactions, media streams, pooled port pairs and how many streams reused one or bound a new
/// one) and what the process holds: heap in use
/// (glibc's count of allocated bytes, which a soak compares) and RSS, in KiB. It prints with `--quiet` too:
/// a soak asks for it.
final class StatsReporter {
    private let timer: any DispatchSourceTimer

    init(every interval: Double, provider: CallProvider, printer: EventPrinter) {
        timer = DispatchSource.makeTimerSource(queue: commandTimers)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            let figures = provider.statistics
            printer.emit(
                "stats",
                [
                    ("live", .int(figures.liveCalls)), ("calls", .int(figures.calls)),
                    ("sessions", .int(figures.sessions)), ("transactions", .int(figures.transactions)),
                    ("media", .int(figures.mediaStreams)), ("pooled_pairs", .int(figures.pooledPortPairs)),
                    ("reused_pairs", .int(figures.reusedPortPairs)), ("bound_pairs", .int(figures.boundPortPairs)),
                    ("heap_kb", .int(Int(sb_heap_in_use() / 1024))), ("rss_kb", .int(Self.residentKiB())),
                ])
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// The process's resident set in KiB, from /proc/self/statm (pages); 0 when unreadable.
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    /// `--stats S`: nil when absent; seconds from 1 to 3600.
    static func interval(_ options: AccountOptions) throws(UsageError) -> Double? {
        guard let text = options["stats"] else { return nil }
        guard let seconds = Double(text), seconds >= 1, seconds <= 3600 else {
            throw UsageError(message: "bad value for --stats: \(text) (1-3600 seconds)")
        }
        return seconds
    }
}
