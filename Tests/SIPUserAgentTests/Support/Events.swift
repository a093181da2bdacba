import SDP
import SIPMessage

@testable import SIPUserAgent

extension SessionEvent {
    /// A short name for sequence checks: `ringing 180`, `connected`, `ended busy 486`, ...
    var name: String {
        switch self {
        case .trying: "trying"
        case .ringing(let status, _, _): "ringing \(status)"
        case .earlyMedia: "early media"
        case .redirected(let contacts): "redirected \(contacts.count)"
        case .offerReceived: "offer"
        case .connected(let session): session == nil ? "connected without media" : "connected"
        case .mediaUpdated: "media updated"
        case .remoteHoldChanged(let held): held ? "remote hold" : "remote resume"
        case .offerRejected(let status, _): "offer rejected \(status)"
        case .sessionRefreshed(let interval): "refreshed \(interval)"
        case .infoReceived: "info"
        case .dtmfReceived(let relay): "dtmf \(relay.signal)"
        case .messageReceived: "message"
        case .requestCompleted(let method, let status, _): "\(method) \(status)"
        case .referReceived: "refer"
        case .referAnswered(let status, _): "refer answered \(status)"
        case .referProgress(let status, _, let isFinal):
            isFinal ? "refer progress \(status) final" : "refer progress \(status)"
        case .ended(let reason):
            ["ended", reason.kind.description, reason.statusCode.map(String.init)].compactMap { $0 }.joined(
                separator: " ")
        }
    }

    var endReason: EndReason? {
        if case .ended(let reason) = self { return reason }
        return nil
    }
}

extension Agent {
    func names(_ session: Int? = nil) -> [String] { events(of: session ?? callID).map(\.name) }

    var endReason: EndReason? { events(of: callID).compactMap(\.endReason).last }

    /// The requests sent with this method.
    func sent(_ method: SIPMethod) -> [SIPRequest] { sentRequests.filter { $0.method == method } }

    /// The responses sent with this status.
    func sent(status: Int) -> [SIPResponse] { sentResponses.filter { $0.statusCode == status } }
}

extension Array where Element == SessionAction {
    var requests: [SIPRequest] {
        compactMap {
            if case .sendRequest(let request, _, _) = $0 { return request }
            return nil
        }
    }

    var tokens: [RequestToken] {
        compactMap {
            if case .sendRequest(_, let token, _) = $0 { return token }
            return nil
        }
    }

    var responses: [SIPResponse] {
        compactMap {
            if case .sendResponse(let response, _) = $0 { return response }
            return nil
        }
    }

    var acks: [SIPRequest] {
        compactMap {
            if case .sendACK(let ack, _) = $0 { return ack }
            return nil
        }
    }

    var events: [SessionEvent] {
        compactMap {
            if case .event(let event) = $0 { return event }
            return nil
        }
    }

    var names: [String] { events.map(\.name) }

    var startedTimers: [(SessionTimer, Duration)] {
        compactMap {
            if case .startTimer(let timer, let delay) = $0 { return (timer, delay) }
            return nil
        }
    }

    func timer(_ kind: SessionTimer.Kind) -> (SessionTimer, Duration)? {
        startedTimers.last { $0.0.kind == kind }
    }

    var isFinished: Bool {
        contains {
            if case .finished = $0 { return true }
            return false
        }
    }
}
