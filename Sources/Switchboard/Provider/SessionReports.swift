import Foundation
import SIPMessage
import SIPUserAgent

extension CallEndDetails {
    /// The CallKit-shaped reason for a session's end (CALLKIT.md "Mapping to SIP"). Pure.
    /// - Parameters:
    ///   - reason: how the session ended.
    ///   - direction: which side placed the call.
    ///   - wasConnected: whether the call had connected.
    ///   - localEndReason: why this side ended it, when it did.
    init(_ reason: EndReason, direction: Call.Direction, wasConnected: Bool, localEndReason: CallEndedReason?) {
        let mapped: CallEndedReason
        switch reason.kind {
        // Transferred away: the other side ended the call by transferring it, even when this side sent the
        // BYE because the transferor did not.
        case .remoteEnded, .replaced, .transferred: mapped = .remoteEnded
        case .localEnded: mapped = localEndReason ?? .localEnded
        case .cancelledByCaller: mapped = .unanswered
        case .timeout:
            // Nobody answered an outgoing call (408, Timer B); anything else that timed out (no ACK, no PRACK,
            // the session timer expired) is a failure of a call that was set up.
            mapped = direction == .outgoing && !wasConnected ? .unanswered : .failed
        case .answeredElsewhere: mapped = .answeredElsewhere
        case .declined, .declinedElsewhere: mapped = .declinedElsewhere
        default: mapped = .failed
        }
        // A call this side ended for a cause (a media timeout) says it in the phrase, as its BYE's Reason did.
        let saysWhy = reason.kind == .localEnded || reason.kind == .transferred
        let phrase = reason.reasonPhrase ?? (saysWhy ? reason.reasons.first?.text : nil)
        self.init(
            reason: mapped, statusCode: reason.statusCode, reasonPhrase: phrase,
            reasons: reason.reasons.map(\.description))
    }
}

extension TextMessage {
    /// A MESSAGE (RFC 3428) as the app receives it, for `account` when it matched one. Pure.
    init(_ request: SIPRequest, account: String?) {
        let from = (try? request.from).map { Handle(uri: $0.uri) } ?? Handle(type: .generic, value: "anonymous")
        let to = (try? request.to).map { Handle(uri: $0.uri) } ?? Handle(type: .generic, value: "")
        let type = (try? request.contentType).map { "\($0)" } ?? "text/plain"
        self.init(from: from, to: to, contentType: type, body: Array(request.body), account: account)
    }
}

extension MessageSummary {
    /// The public summary of a parsed message-summary body (voice-message counts). Pure.
    init(_ summary: SIPUserAgent.MessageSummary) {
        let voice = summary.voice
        self.init(
            messagesWaiting: summary.messagesWaiting, messageAccount: summary.account, newMessages: voice?.new ?? 0,
            oldMessages: voice?.old ?? 0)
    }
}

extension Array where Element == SIPField {
    /// Header fields from the app's name/value pairs; names that are not tokens, and values with CR or LF,
    /// are skipped. Pure.
    init(appHeaders headers: [(name: String, value: String)]) {
        self = headers.compactMap { header in
            guard let name = SIPField.Name(header.name),
                !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A })
            else { return nil }
            return SIPField(name: name, value: header.value)
        }
    }
}
