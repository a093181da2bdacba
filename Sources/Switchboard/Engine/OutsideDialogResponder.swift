import SIPMessage
import SIPUserAgent

/// Decides what a request outside any dialog gets, other than an INVITE: OPTIONS answered with the
/// capabilities (RFC 3261 §11.2), MESSAGE accepted (RFC 3428), an unsolicited message-summary NOTIFY
/// accepted (RFC 3842 §6), and the refusals (405, 481, 489, 501) for the rest. Pure.
struct OutsideDialogResponder {
    /// What to do with a request outside any dialog.
    enum Outcome {
        /// A new INVITE: the driver makes a session for it.
        case invite
        /// Answer with `response`; nothing more.
        case respond(SIPResponse)
        /// Answer with `response` (200), then hand the MESSAGE to the app.
        case message(SIPResponse)
        /// Answer with `response` (200), then hand the summary to the app.
        case messageSummary(SIPResponse, SIPUserAgent.MessageSummary)
    }

    let capabilities: UserAgentCapabilities
    /// The Server header field value of OPTIONS answers.
    let userAgent: String

    init(capabilities: UserAgentCapabilities = UserAgentCapabilities(), userAgent: String) {
        self.capabilities = capabilities
        self.userAgent = userAgent
    }

    /// The Allow header field value.
    var allow: String { capabilities.allowedMethods.map(\.description).joined(separator: ", ") }

    /// What `request` gets; `tag` makes the To tag of a response (called once per response).
    func outcome(for request: SIPRequest, tag: () -> String) -> Outcome {
        func response(_ status: Int) -> SIPResponse { SIPResponse(answering: request, status: status, toTag: tag()) }
        switch request.method {
        case .invite:
            return .invite
        case .options:
            var options = capabilities.optionsResponse(to: request, toTag: tag())
            options.headerFields.append(.server, userAgent)
            return .respond(options)
        case .message:
            return .message(response(200))
        case .register:
            var refusal = response(405)
            refusal.headerFields.append(.allow, allow)
            return .respond(refusal)
        case .subscribe:
            var refusal = response(489)
            refusal.headerFields.append(.allowEvents, "refer")
            return .respond(refusal)
        case .notify:
            // Unsolicited message-waiting (RFC 3842 §6, as Asterisk sends it by default); any other NOTIFY
            // outside a subscription matches nothing.
            guard (try? request.event)??.package.lowercased() == "message-summary",
                let summary = SIPUserAgent.MessageSummary(parsing: request.body)
            else { return .respond(response(481)) }
            return .messageSummary(response(200), summary)
        case .bye, .info, .update, .prack, .refer:
            return .respond(response(481))
        default:
            var refusal = response(501)
            refusal.headerFields.append(.allow, allow)
            return .respond(refusal)
        }
    }
}
