import Foundation

extension CallProviderEvent {
    /// Calls `delegate`'s callback for this event: the one mapping from events to callbacks, for the
    /// provider's outlet and for relays in the package that take events but keep a callback per kind. An
    /// action of a kind with no callback of its own is fulfilled.
    package func deliver(to delegate: any CallProviderDelegate, from provider: CallProvider) {
        switch payload {
        case .didBegin: delegate.providerDidBegin(provider)
        case .didReset: delegate.providerDidReset(provider)
        case .invite(let invite): delegate.provider(provider, didReceive: invite)
        case .inviteCancelled(let invite): delegate.provider(provider, didCancel: invite)
        case .inviteArrived(let invite): delegate.provider(provider, inviteDidArrive: invite)
        case .action(let action):
            switch action {
            case let action as StartCallAction: delegate.provider(provider, perform: action)
            case let action as AnswerCallAction: delegate.provider(provider, perform: action)
            case let action as EndCallAction: delegate.provider(provider, perform: action)
            case let action as SetHeldCallAction: delegate.provider(provider, perform: action)
            case let action as SetMutedCallAction: delegate.provider(provider, perform: action)
            case let action as PlayDTMFCallAction: delegate.provider(provider, perform: action)
            case let action as TransferCallAction: delegate.provider(provider, perform: action)
            default: action.fulfill()
            }
        case .actionTimedOut(let action): delegate.provider(provider, timedOutPerforming: action)
        case .audioActivated(let uuid): delegate.provider(provider, didActivateAudioFor: uuid)
        case .audioDeactivated(let uuid): delegate.provider(provider, didDeactivateAudioFor: uuid)
        case .startedConnecting(let call): delegate.provider(provider, callDidStartConnecting: call)
        case .ringing(let call, let status, let early):
            delegate.provider(provider, callDidStartRinging: call, statusCode: status, hasEarlyMedia: early)
        case .connected(let call): delegate.provider(provider, callDidConnect: call)
        case .reconnecting(let call): delegate.provider(provider, callIsReconnecting: call)
        case .reconnected(let call): delegate.provider(provider, callDidReconnect: call)
        case .updated(let call, let update): delegate.provider(provider, call: call, didUpdate: update)
        case .ended(let call, let details): delegate.provider(provider, call: call, didEndWith: details)
        case .dtmfReceived(let call, let digit): delegate.provider(provider, call: call, didReceiveDTMF: digit)
        case .transferred(let call, let target, let new):
            delegate.provider(provider, call: call, wasTransferredTo: target, newCallUUID: new)
        case .registration(let account, let state): delegate.provider(provider, account: account, didChange: state)
        case .message(let message): delegate.provider(provider, didReceive: message)
        case .messageSummary(let account, let summary):
            delegate.provider(provider, account: account, didReceive: summary)
        }
    }
}
