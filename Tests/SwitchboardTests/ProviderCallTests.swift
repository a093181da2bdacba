import Dispatch
import Foundation
import SIPTransport
import Switchboard
import Synchronization
import Testing

/// Two providers on loopback drive every action and every end reason (issue 6 §1).
@Suite("CallProvider: calls between two providers on loopback", .serialized)
struct ProviderCallTests {
    @Test func answerAndLocalHangUp() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        let snapshot = try #require(pair.alice.call(with: alice))
        #expect(snapshot.state == .connected)
        #expect(snapshot.direction == .outgoing)
        #expect(snapshot.codec == "opus")
        try await pair.aliceController.endCall(alice)
        let aliceEnd = try #require(await pair.aliceDelegate.ended(alice))
        let bobEnd = try #require(await pair.bobDelegate.ended(bob))
        #expect(aliceEnd.reason == .localEnded)
        #expect(bobEnd.reason == .remoteEnded)
        // Audio was activated on connect and deactivated at the end, on both sides.
        #expect(await pair.bobDelegate.wait { $0.kind == .audioActivated && $0.callUUID == bob ? true : nil } == true)
        #expect(await pair.bobDelegate.wait { $0.kind == .audioDeactivated && $0.callUUID == bob ? true : nil } == true)
    }

    @Test func theFirstDelegateHearsDidBegin() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        #expect(await pair.aliceDelegate.wait(seconds: 2) { $0.kind == .didBegin ? true : nil } == true)
    }

    @Test func theCalleeHangsUp() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        try await pair.bobController.endCall(bob)
        #expect(await pair.aliceDelegate.ended(alice)?.reason == .remoteEnded)
        #expect(await pair.bobDelegate.ended(bob)?.reason == .localEnded)
    }

    @Test func busyIsAFailureWith486() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.endCall(invite.callUUID, rejectStatus: 486)
        let details = try #require(await pair.aliceDelegate.ended(alice))
        #expect(details.reason == .failed)
        #expect(details.statusCode == 486)
        #expect(details.reasonPhrase == "Busy Here")
    }

    @Test func declineIsDeclinedElsewhereWith603() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.endCall(invite.callUUID)
        let details = try #require(await pair.aliceDelegate.ended(alice))
        #expect(details.reason == .declinedElsewhere)
        #expect(details.statusCode == 603)
    }

    @Test func theCallerCancelsBeforeTheAnswer() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(await pair.bobDelegate.invite())
        // CANCEL only after a provisional response (§9.1): wait for the 180.
        _ = await pair.aliceDelegate.wait { $0.kind == .ringing ? true : nil }
        try await pair.aliceController.endCall(alice)
        let cancelled = try #require(
            await pair.bobDelegate.wait {
                $0.cancelledInvite
            })
        #expect(cancelled.callUUID == invite.callUUID)
        #expect(cancelled.reason == .unanswered)
        #expect(await pair.bobDelegate.ended(invite.callUUID)?.reason == .unanswered)
        let details = try #require(await pair.aliceDelegate.ended(alice))
        #expect(details.reason == .localEnded)
        // The caller's session ends when it sends CANCEL; the 487 that follows changes nothing.
        #expect(details.statusCode == nil || details.statusCode == 487)
    }

    @Test func holdAndResumeReachTheOtherSide() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        try await pair.aliceController.setHeld(alice, true)
        let held = await pair.bobDelegate.wait {
            if let update = $0.update, $0.callUUID == bob, update.isRemoteHeld == true {
                true
            } else {
                nil
            }
        }
        #expect(held == true)
        #expect(pair.alice.call(with: alice)?.isOnHold == true)
        try await pair.aliceController.setHeld(alice, false)
        let resumed = await pair.bobDelegate.wait {
            if let update = $0.update, $0.callUUID == bob, update.isRemoteHeld == false {
                true
            } else {
                nil
            }
        }
        #expect(resumed == true)
        #expect(pair.alice.call(with: alice)?.isOnHold == false)
    }

    @Test func muteChangesTheSnapshot() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        try await pair.aliceController.setMuted(alice, true)
        for _ in 0..<100 where pair.alice.call(with: alice)?.isMuted != true {
            try await pair.pause(.milliseconds(10))
        }
        #expect(pair.alice.call(with: alice)?.isMuted == true)
    }

    @Test func dtmfDigitsArriveInOrder() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        try await pair.aliceController.playDTMF(alice, digits: "1#9")
        for _ in 0..<300 {
            let digits = pair.bobDelegate.events.withLock {
                $0.compactMap(\.digit)
            }
            if digits.count == 3 { break }
            try await pair.pause(.milliseconds(10))
        }
        let digits = pair.bobDelegate.events.withLock {
            $0.compactMap(\.digit)
        }
        #expect(String(digits) == "1#9")
    }

    @Test func anUnansweredInviteTimesOutForTheCaller() async throws {
        // Bob never answers and never rejects; the caller gives up after Timer B... which a ringing INVITE
        // never hits. The callee's own unanswered timeout ends it with 480 instead.
        let pair = try ProviderPair(bobConfiguration: { $0.unansweredTimeout = .milliseconds(500) })
        defer { pair.close() }
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(await pair.bobDelegate.invite())
        let details = try #require(await pair.aliceDelegate.ended(alice))
        #expect(details.statusCode == 480)
        #expect(await pair.bobDelegate.ended(invite.callUUID)?.reason == .unanswered)
    }

    @Test func aCallToNobodyTimesOut() async throws {
        // A UDP socket that never answers: Timer B (64*T1 = 6.4 s with T1 = 100 ms).
        let pair = try ProviderPair()
        defer { pair.close() }
        let silent = try pair.makePeer()
        defer { silent.close() }
        let alice = try await pair.aliceController.startCall(
            to: Handle(type: .generic, value: "sip:nobody@127.0.0.1:\(silent.port)"))
        let details = try #require(await pair.aliceDelegate.ended(alice, seconds: 15))
        #expect(details.reason == .unanswered)
        #expect(details.statusCode == 408)
    }

    @Test func anUnfulfilledAnswerTimesOutAndTheCallerGets480() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        pair.bobDelegate.policy.withLock { $0 = { $0 is AnswerCallAction ? .ignore : .fulfil } }
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.answerCall(invite.callUUID)
        let timedOut = await pair.bobDelegate.wait { $0.kind == .actionTimedOut ? $0.action : nil }
        #expect(timedOut is AnswerCallAction)
        #expect(timedOut?.isComplete == true)
        let details = try #require(await pair.aliceDelegate.ended(alice))
        #expect(details.statusCode == 480)
    }

    @Test func aFailedStartCallNeverSendsAnInvite() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        pair.aliceDelegate.policy.withLock { $0 = { _ in .fail } }
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let details = try #require(await pair.aliceDelegate.ended(alice))
        #expect(details.reason == .failed)
        try await pair.pause(.milliseconds(200))
        #expect(pair.bobDelegate.invites.isEmpty)
    }

    @Test func theDelegateRunsOnItsQueue() async throws {
        let queue = DispatchQueue(label: "test.delegate")
        // Delegate queues exist only outside a virtual world (there callbacks run on its loop).
        let pair = try ProviderPair(overSockets: true)
        defer { pair.close() }
        queue.setSpecific(key: pair.bobDelegate.queueKey, value: "test.delegate")
        // providerDidBegin went to the first queue (ProviderPair set none): wait for it, then start afresh.
        _ = await pair.bobDelegate.wait(seconds: 2) { $0.kind == .didBegin ? true : nil }
        pair.bob.setDelegate(pair.bobDelegate, queue: queue)
        pair.bobDelegate.queuesSeen.withLock { $0 = [] }
        _ = try await pair.connect()
        #expect(pair.bobDelegate.queuesSeen.withLock { $0 } == ["test.delegate"])
    }

    @Test func invalidateReturnsOnlyOnceTheDelegateHasHeardEverything() async throws {
        let queue = DispatchQueue(label: "test.slow-delegate")
        let pair = try ProviderPair(overSockets: true)
        defer { pair.close() }
        pair.bob.setDelegate(pair.bobDelegate, queue: queue)
        let (_, bob) = try await pair.connect()
        // A busy delegate queue: the call's end and providerDidReset queue up behind this.
        queue.async { usleep(300_000) }
        await offPool { pair.bob.invalidate(timeout: .seconds(2)) }
        let events = pair.bobDelegate.events.withLock { $0 }
        #expect(events.contains { $0.kind == .ended && $0.callUUID == bob })
        #expect(events.last?.kind == .didReset, "providerDidReset is not the last callback")
    }

    @Test func requestsAreCheckedBeforeTheDelegateSeesThem() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        await #expect(throws: CallError.unknownCallUUID) { try await pair.aliceController.answerCall(UUID()) }
        await #expect(throws: CallError.emptyTransaction) {
            try await pair.aliceController.request(CallTransaction(actions: []))
        }
        await #expect(throws: CallError.invalidHandle("sip:")) {
            try await pair.aliceController.startCall(to: Handle(type: .generic, value: "sip:"))
        }
        let uuid = try await pair.aliceController.startCall(to: pair.bobHandle)
        await #expect(throws: CallError.callUUIDAlreadyExists) {
            try await pair.aliceController.request(
                CallTransaction(action: StartCallAction(call: uuid, handle: pair.bobHandle)))
        }
        await #expect(throws: (any Error).self) { try await pair.aliceController.answerCall(uuid) }
    }

    @Test func theEventsStreamSeesTheSameCall() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let events = pair.alice.events
        let collector = Task {
            var names: [String] = []
            for await event in events {
                switch event.kind {
                case .startedConnecting: names.append("connecting")
                case .connected: names.append("connected")
                case .ended:
                    names.append("ended")
                    return names
                default: break
                }
            }
            return names
        }
        let (alice, _) = try await pair.connect()
        try await pair.aliceController.endCall(alice)
        #expect(await collector.value == ["connecting", "connected", "ended"])
    }
}
