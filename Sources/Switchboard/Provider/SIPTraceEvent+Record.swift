import Foundation
import SIPTransport

extension SIPTraceEvent {
    /// A transport's trace record as the app sees it: wall-clock dated (`now` is the loop's time, `date`
    /// the wall clock at `now`) and with credentials redacted. Pure.
    init(_ record: TraceRecord, now: ContinuousClock.Instant, date: Date) {
        let elapsed = now - record.time
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        self.init(
            direction: record.direction == .incoming ? .received : .sent, transport: SIPTransportKind(record.transport),
            localAddress: record.local.description, remoteAddress: record.remote.description,
            date: date.addingTimeInterval(-seconds),
            bytes: PushTokenRedaction.redact(CredentialRedaction.redact(record.bytes)))
    }
}
