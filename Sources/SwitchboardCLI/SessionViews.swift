import Dispatch
import Foundation
import Switchboard

#if canImport(Glibc)
    import Glibc
#endif

/// The views of a session fed from the provider's SIP trace stream (CLI.md "Output" and "Views"):
/// `--trace` on stderr, `--pcap FILE` and `--ladder FILE.html`. One task reads the stream, so every view
/// sees the messages in the same order. `finish()` waits until the stream has ended (the provider was
/// invalidated) and every message was handed on, then writes the ladder page.
final class SessionViews: Sendable {
    let tracer: (@Sendable (String) -> Void)?
    let pcap: PcapWriter?
    let ladder: LadderWriter?
    private let drained = DispatchSemaphore(value: 0)

    /// Opens the files the flags name; `nil` when no view is asked for.
    /// - Throws: `UsageError` naming the flag when a file cannot be written.
    static func open(_ options: AccountOptions, io: CommandIO) throws(UsageError) -> SessionViews? {
        let colour = isatty(2) != 0
        let tracer: (@Sendable (String) -> Void)? = options.has("trace") ? io.error : nil
        var pcap: PcapWriter?
        if let path = options["pcap"] {
            do throws(PcapError) {
                pcap = try PcapWriter(path: path)
            } catch {
                throw UsageError(message: "bad value for --pcap: \(error.message)")
            }
        }
        var ladder: LadderWriter?
        if let path = options["ladder"] {
            let writer = LadderWriter(path: path)
            do {
                try writer.write()
            } catch {
                throw UsageError(message: "bad value for --ladder: cannot write \(path)")
            }
            ladder = writer
        }
        guard tracer != nil || pcap != nil || ladder != nil else { return nil }
        return SessionViews(tracer: tracer, colour: colour, pcap: pcap, ladder: ladder)
    }

    private let colour: Bool

    private init(tracer: (@Sendable (String) -> Void)?, colour: Bool, pcap: PcapWriter?, ladder: LadderWriter?) {
        self.tracer = tracer
        self.colour = colour
        self.pcap = pcap
        self.ladder = ladder
    }

    /// Starts reading `traces`; `elapsed` turns an event's date into seconds since the command started.
    func start(_ traces: AsyncStream<SIPTraceEvent>, elapsed: @escaping @Sendable (Date) -> Double) {
        // On a thread of its own: `finish` blocks until this reader is done, whatever the process's
        // cooperative pool is busy with.
        let executor = ThreadExecutor(name: "views")
        Task.detached(executorPreference: executor) { [self] in
            for await event in traces { handle(event, elapsed: elapsed(event.date)) }
            drained.signal()
            executor.stop()
        }
    }

    /// Hands one message to every view.
    func handle(_ event: SIPTraceEvent, elapsed: Double) {
        tracer?(SIPTracer.format(event, elapsed: elapsed, colour: colour))
        if let pcap, let local = PcapWriter.Endpoint(event.localAddress),
            let remote = PcapWriter.Endpoint(event.remoteAddress)
        {
            let sent = event.direction == .sent
            pcap.writeSIP(
                time: event.date, source: sent ? local : remote, destination: sent ? remote : local,
                message: event.bytes)
        }
        ladder?.append(LadderRow(event: event, time: elapsed))
    }

    /// Hands one RTP or RTCP packet to `--pcap` (its headers only; see `PcapWriter.writeRTPHeader`), for the
    /// media layer once it is wired; the trace and the ladder show SIP only.
    /// - Parameters:
    ///   - packet: the whole packet as sent or received.
    ///   - sent: whether this side sent it.
    ///   - localAddress: this side's RTP address (`127.0.0.1:17000`).
    ///   - remoteAddress: the other side's.
    func handleRTP(_ packet: [UInt8], sent: Bool, localAddress: String, remoteAddress: String, date: Date = Date()) {
        guard let pcap, let local = PcapWriter.Endpoint(localAddress), let remote = PcapWriter.Endpoint(remoteAddress)
        else { return }
        pcap.writeRTPHeader(
            time: date, source: sent ? local : remote, destination: sent ? remote : local, packet: packet)
    }

    /// Waits (up to `timeout` seconds) for the trace stream to end, then closes the pcap file and writes
    /// the ladder page. Call after the provider is invalidated.
    func finish(timeout: Double = 5) -> [String] {
        _ = drained.wait(timeout: .now() + timeout)
        var problems: [String] = []
        if let pcap {
            pcap.close()
            if pcap.droppedCount > 0 {
                problems.append("--pcap: \(pcap.droppedCount) packets not written (size limit or write error)")
            }
        }
        if let ladder {
            do {
                try ladder.write()
            } catch {
                problems.append("--ladder: cannot write \(ladder.path): \(error.localizedDescription)")
            }
        }
        return problems
    }
}
