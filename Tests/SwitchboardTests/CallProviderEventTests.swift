import Foundation
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// `CallProviderEvent` is a struct over a kind and its payload (STYLE.md "Errors that can grow"): each
/// factory gives its kind, and what it was given comes back through the typed accessors, nothing else.
@Suite("CallProviderEvent")
struct CallProviderEventTests {
    static let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    static let other = UUID(uuid: (16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1))
    static let bob = Handle(type: .generic, value: "sip:bob@example.com")

    static let call = Call(
        uuid: uuid, callID: "c1", account: "alice", direction: .outgoing, state: .connected,
        localHandle: Handle(type: .generic, value: "sip:alice@example.com"), remoteHandle: bob,
        remoteDisplayName: "Bob", isOnHold: false, isRemoteHeld: false, isMuted: false, codec: "PCMU",
        isSecure: false, quality: nil, startedAt: Date(timeIntervalSince1970: 0), connectedAt: nil, endedAt: nil,
        endDetails: nil)

    /// One event of every kind, with the kind it must report.
    static var everyKind: [(CallProviderEvent, CallProviderEvent.Kind)] {
        let invite = CallInvite(
            callUUID: uuid, callID: "c1", from: bob, callerName: nil, to: bob, account: nil, offeredCodecs: [],
            offersSRTP: false, headers: [])
        let cancelled = CancelledCallInvite(
            callUUID: uuid, callID: "c1", from: bob, reason: .unanswered, details: CallEndDetails(reason: .unanswered))
        let action = EndCallAction(call: uuid)
        var update = CallUpdate()
        update.isRemoteHeld = true
        let message = TextMessage(from: bob, to: bob, body: Array("hi".utf8))
        let summary = MessageSummary(messagesWaiting: true, newMessages: 2)
        return [
            (.didBegin, .didBegin), (.didReset, .didReset), (.invite(invite), .invite),
            (.inviteCancelled(cancelled), .inviteCancelled), (.action(action), .action),
            (.actionTimedOut(action), .actionTimedOut), (.audioActivated(uuid), .audioActivated),
            (.audioDeactivated(uuid), .audioDeactivated), (.startedConnecting(call), .startedConnecting),
            (.ringing(call, statusCode: 183, hasEarlyMedia: true), .ringing), (.connected(call), .connected),
            (.reconnecting(call), .reconnecting), (.reconnected(call), .reconnected),
            (.updated(call, update), .updated), (.ended(call, CallEndDetails(reason: .remoteEnded)), .ended),
            (.dtmfReceived(call, digit: "5"), .dtmfReceived),
            (.transferred(call, to: bob, newCallUUID: other), .transferred),
            (.registration(account: "alice", state: .registering), .registration), (.message(message), .message),
            (.messageSummary(account: "alice", summary: summary), .messageSummary),
            (.inviteArrived(invite), .inviteArrived),
        ]
    }

    @Test func everyFactoryReportsItsKind() {
        let events = Self.everyKind
        #expect(events.map(\.1) == CallProviderEvent.Kind.allCases)
        for (event, kind) in events {
            #expect(event.kind == kind)
            #expect(event.description.hasPrefix(kind.description))
        }
        #expect(Set(CallProviderEvent.Kind.allCases).count == 21)
        #expect(CallProviderEvent.Kind.inviteCancelled.description == "inviteCancelled")
    }

    @Test func callEventsCarryTheirCallAndItsUUID() {
        let callKinds: Set<CallProviderEvent.Kind> = [
            .startedConnecting, .ringing, .connected, .reconnecting, .reconnected, .updated, .ended, .dtmfReceived,
            .transferred,
        ]
        let providerKinds: Set<CallProviderEvent.Kind> = [
            .didBegin, .didReset, .registration, .message, .messageSummary,
        ]
        for (event, kind) in Self.everyKind {
            #expect((event.call?.callID == "c1") == callKinds.contains(kind), "\(kind)")
            #expect((event.callUUID == Self.uuid) == !providerKinds.contains(kind), "\(kind)")
        }
    }

    @Test func payloadsRoundTrip() {
        let byKind = Dictionary(uniqueKeysWithValues: Self.everyKind.map { ($0.1, $0.0) })
        func event(_ kind: CallProviderEvent.Kind) -> CallProviderEvent? { byKind[kind] }

        #expect(event(.invite)?.invite?.callID == "c1")
        #expect(event(.inviteCancelled)?.cancelledInvite?.reason == .unanswered)
        #expect(event(.action)?.action is EndCallAction)
        #expect(event(.actionTimedOut)?.action is EndCallAction)
        #expect(event(.audioDeactivated)?.callUUID == Self.uuid)
        #expect(event(.ringing)?.statusCode == 183)
        #expect(event(.ringing)?.hasEarlyMedia == true)
        #expect(event(.updated)?.update?.isRemoteHeld == true)
        #expect(event(.ended)?.endDetails?.reason == .remoteEnded)
        #expect(event(.dtmfReceived)?.digit == "5")
        #expect(event(.transferred)?.transferTarget == Self.bob)
        #expect(event(.transferred)?.newCallUUID == Self.other)
        #expect(event(.registration)?.account == "alice")
        #expect(event(.registration)?.registrationState == .registering)
        #expect(event(.message)?.message?.text == "hi")
        #expect(event(.messageSummary)?.account == "alice")
        #expect(event(.messageSummary)?.messageSummary?.newMessages == 2)
    }

    @Test func anAccessorIsNilForTheKindsThatDoNotCarryIt() {
        for (event, kind) in Self.everyKind {
            #expect((event.invite != nil) == (kind == .invite || kind == .inviteArrived))
            #expect((event.cancelledInvite != nil) == (kind == .inviteCancelled))
            #expect((event.action != nil) == (kind == .action || kind == .actionTimedOut))
            #expect((event.statusCode != nil) == (kind == .ringing))
            #expect(event.hasEarlyMedia == (kind == .ringing))
            #expect((event.update != nil) == (kind == .updated))
            #expect((event.endDetails != nil) == (kind == .ended))
            #expect((event.digit != nil) == (kind == .dtmfReceived))
            #expect((event.transferTarget != nil) == (kind == .transferred))
            #expect((event.newCallUUID != nil) == (kind == .transferred))
            #expect((event.account != nil) == (kind == .registration || kind == .messageSummary))
            #expect((event.registrationState != nil) == (kind == .registration))
            #expect((event.message != nil) == (kind == .message))
            #expect((event.messageSummary != nil) == (kind == .messageSummary))
        }
    }

    @Test func aSwitchOverTheKindNeedsADefault() {
        func isAboutTheCall(_ kind: CallProviderEvent.Kind) -> Bool {
            switch kind {
            case .connected, .ended: true
            default: false
            }
        }
        #expect(Self.everyKind.map(\.1).filter(isAboutTheCall) == [.connected, .ended])
    }
}

/// A delegate that takes events as they are: it counts the callbacks it hears instead.
private final class RelayRecorder: CallProviderEventRelay {
    let relayed = Mutex<[CallProviderEvent.Kind]>([])
    let callbacks = Mutex(0)

    func provider(_ provider: CallProvider, relay event: CallProviderEvent) {
        relayed.withLock { $0.append(event.kind) }
        event.action?.fulfill()
    }
    func providerDidReset(_ provider: CallProvider) { callbacks.withLock { $0 += 1 } }
    func provider(_ provider: CallProvider, didActivateAudioFor callUUID: UUID) { callbacks.withLock { $0 += 1 } }
    func provider(_ provider: CallProvider, perform action: EndCallAction) {
        callbacks.withLock { $0 += 1 }
        action.fulfill()
    }
}

extension CallProviderEventTests {
    /// A relay (the CLI's delegate) hears every event of a batch itself, in order, actions included, and
    /// none of the callbacks.
    @Test func aRelayHearsTheEventsThemselvesInOrder() throws {
        let world = VirtualWorld()
        let provider = try world.makeProvider(
            configuration: CallProviderConfiguration(accounts: [], listeners: []), host: "127.0.0.1")
        defer { provider.invalidate(timeout: .seconds(2)) }
        let relay = RelayRecorder()
        let outlet = EventOutlet()
        outlet.setDelegate(relay, queue: nil)
        let action = EndCallAction(call: Self.uuid)
        outlet.deliver(
            [.event(.audioActivated(Self.uuid)), .event(.action(action)), .event(.didReset)], from: provider)
        outlet.drain(timeout: .now() + .seconds(30))
        #expect(relay.relayed.withLock { $0 } == [.audioActivated, .action, .didReset])
        #expect(relay.callbacks.withLock { $0 } == 0)
    }
}
