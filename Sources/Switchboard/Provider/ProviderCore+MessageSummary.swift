import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// Solicited message-waiting (RFC 3842 over RFC 6665): the accounts' message-summary subscriptions.
extension ProviderCore {
    /// Routes the NOTIFYs of subscription dialogs to the subscription driver before the session driver
    /// sees a request, and passes summaries on to the delegate.
    func wireSubscriptions() {
        subscriptions.onSummary = { [weak self] account, summary in
            self?.emit(.messageSummary(account: account, summary: MessageSummary(summary)))
        }
        let sessionsReceive = engine.core.onRequest
        engine.core.onRequest = { [weak self] request in
            if self?.subscriptions.receive(request) == true { return }
            sessionsReceive?(request)
        }
    }

    /// Subscribes an account that asks for it (`Account.subscribesToMessageSummary`), unless it already
    /// has a subscription or the provider is winding down.
    func subscribeToMessageSummary(_ id: String) {
        guard !calls.isWindingDown, let entry = accounts[id], entry.account.subscribesToMessageSummary,
            !subscriptions.isSubscribed(id)
        else { return }
        subscriptions.start(id, entry.messageSummaryTarget)
    }
}
