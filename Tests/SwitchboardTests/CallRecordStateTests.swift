import Foundation
import SIPMessage
import Testing

@testable import Switchboard

/// The pure state a call record carries: redirections, transfers and the media decisions.
@Suite("Glue: call record state")
struct CallRecordStateTests {
    // MARK: Routing

    @Test func redirectionsAreTriedInOrderUpToTheLimit() throws {
        var routing = CallRouting()
        let none = routing.nextRedirection()
        #expect(none == nil)
        let targets = try (1...7).map { try URI("sip:bob\($0)@example.com") }
        routing.redirected(to: targets)
        var followed: [URI] = []
        while let next = routing.nextRedirection() { followed.append(next) }
        #expect(followed == Array(targets.prefix(CallRouting.limit)))
        #expect(routing.redirections == CallRouting.limit)
        // A further 3xx is not followed either.
        routing.redirected(to: targets)
        let beyond = routing.nextRedirection()
        #expect(beyond == nil)
    }

    // MARK: Record changes

    @Test func onlyARealRemoteHoldChangeIsReported() {
        let record = Parts.record()
        #expect(record.remoteHoldChanged(false) == nil)
        #expect(record.remoteHoldChanged(true)?.isRemoteHeld == true)
        #expect(record.call.isRemoteHeld)
        #expect(record.remoteHoldChanged(true) == nil)
    }

    @Test func anUnansweredIncomingCallEndsAsACancelledInvite() {
        let date = Date(timeIntervalSince1970: 9)
        let ringing = Parts.record(direction: .incoming, state: .ringing)
        let cancelled = ringing.end(CallEndDetails(reason: .answeredElsewhere), at: date)
        #expect(cancelled?.callUUID == ringing.uuid)
        #expect(cancelled?.reason == .answeredElsewhere)
        #expect(ringing.state == .ended)
        #expect(ringing.call.endedAt == date)
        #expect(ringing.call.endDetails?.reason == .answeredElsewhere)
        // Not when this side ended it, when it failed, when it was answered, or for an outgoing call.
        let declined = Parts.record(direction: .incoming, state: .ringing)
        #expect(declined.end(CallEndDetails(reason: .localEnded), at: date) == nil)
        let failed = Parts.record(direction: .incoming, state: .ringing)
        #expect(failed.end(CallEndDetails(reason: .failed), at: date) == nil)
        let answered = Parts.record(direction: .incoming, state: .ringing)
        answered.connected(at: date)
        #expect(answered.state == .connected)
        #expect(answered.end(CallEndDetails(reason: .remoteEnded), at: date) == nil)
        let outgoing = Parts.record(direction: .outgoing, state: .ringing)
        #expect(outgoing.end(CallEndDetails(reason: .unanswered), at: date) == nil)
    }

    @Test func aReconnectionStartsOnceOnAConnectedCall() {
        let record = Parts.record(state: .connected)
        let ends = [record.finishReconnecting()]
        let starts = [record.startReconnecting(), record.startReconnecting()]
        let finishes = [record.finishReconnecting(), record.finishReconnecting()]
        #expect(ends == [false])
        #expect(starts == [true, false])
        #expect(finishes == [true, false])
        let ringing = Parts.record(state: .ringing)
        #expect(!ringing.startReconnecting())
    }

    @Test func theUnansweredTimerIsCancelledOnce() {
        let record = Parts.record(direction: .incoming, state: .ringing)
        var cancels = 0
        record.unansweredTimer = TimerHandleBox { cancels += 1 }
        record.cancelUnansweredTimer()
        record.cancelUnansweredTimer()
        #expect(cancels == 1)
    }

    @Test func occasionalStateIsHeldOnlyWhileSomethingIsSet() throws {
        let record = Parts.record(direction: .incoming, state: .ringing)
        #expect(record.occasional == nil)
        record.unansweredTimer = TimerHandleBox {}
        #expect(record.occasional != nil)
        record.cancelUnansweredTimer()
        #expect(record.occasional == nil)
        // Reading or clearing what is unset makes nothing.
        #expect(record.transfer.takeReferral() == nil)
        #expect(record.routing.nextRedirection() == nil)
        record.localEndReason = nil
        #expect(record.occasional == nil)
        let target = try URI("sip:bob@example.com")
        record.routing.target = target
        record.localEndReason = .unanswered
        #expect(record.routing.target == target)
        #expect(record.localEndReason == .unanswered)
        #expect(record.transfer.isIdle)
        record.routing = CallRouting()
        #expect(record.occasional != nil)
        record.localEndReason = nil
        #expect(record.occasional == nil)
    }

    // MARK: Transfers

    @Test func aTransferEndsTheCallOnlyOnAFinalSuccess() {
        var transfer = TransferState()
        var ends: [Bool] = []
        ends.append(transfer.referProgress(status: 200, isFinal: true))
        transfer.startTransfer()
        ends.append(transfer.referProgress(status: 180, isFinal: false))
        ends.append(transfer.referProgress(status: 200, isFinal: false))
        ends.append(transfer.referProgress(status: 200, isFinal: true))
        #expect(!transfer.isTransferring)
        ends.append(transfer.referProgress(status: 200, isFinal: true))
        #expect(ends == [false, false, false, true, false])
    }

    @Test func aRefusedReferLeavesNoTransferToWaitFor() {
        var transfer = TransferState()
        transfer.startTransfer()
        transfer.referAnswered(status: 202)
        #expect(transfer.isTransferring)
        transfer.referAnswered(status: 603)
        #expect(!transfer.isTransferring)
        let ends = transfer.referProgress(status: 200, isFinal: true)
        #expect(!ends)
    }

    @Test func theReferralIsTakenOnce() {
        var transfer = TransferState()
        transfer.referral = (SessionKey(raw: 3), 7)
        let taken = transfer.takeReferral()
        let again = transfer.takeReferral()
        #expect(taken?.session == SessionKey(raw: 3))
        #expect(taken?.id == 7)
        #expect(again == nil)
    }

    // MARK: Media

    @Test func audioBecomesActiveOnlyOnAConnectedCall() {
        var media = CallMediaState()
        var changes: [Bool] = []
        changes.append(media.setAudioActive(true, isConnected: false))
        changes.append(media.setAudioActive(true, isConnected: true))
        changes.append(media.setAudioActive(true, isConnected: true))
        #expect(media.isAudioActive)
        // Stopping works in any state, once.
        changes.append(media.setAudioActive(false, isConnected: false))
        changes.append(media.setAudioActive(false, isConnected: false))
        #expect(changes == [false, true, false, true, false])
    }

    @Test func manualActivationWaitsForTheAppsRequest() {
        var media = CallMediaState()
        #expect(media.mayPlay(manualActivation: false))
        #expect(!media.mayPlay(manualActivation: true))
        media.requestAudio(true)
        #expect(media.mayPlay(manualActivation: true))
        media.requestAudio(false)
        #expect(!media.mayPlay(manualActivation: true))
    }

    @Test func earlyMediaPlaysOnceBeforeTheAnswer() {
        var media = CallMediaState()
        var starts: [Bool] = []
        starts.append(media.startEarlyMedia(state: .ringing, manualActivation: false))
        media.earlyAnswerArrived()
        let news = [media.takeNewEarlyMedia(), media.takeNewEarlyMedia()]
        #expect(news == [true, false])
        starts.append(media.startEarlyMedia(state: .connected, manualActivation: false))
        starts.append(media.startEarlyMedia(state: .ringing, manualActivation: true))
        starts.append(media.startEarlyMedia(state: .ringing, manualActivation: false))
        starts.append(media.startEarlyMedia(state: .ringing, manualActivation: false))
        #expect(starts == [false, false, false, true, false])
        #expect(media.isEarlyMediaPlaying)
        let stops = [media.stopEarlyMedia(), media.stopEarlyMedia()]
        #expect(stops == [true, false])
        // A 3xx forgets the old target's early media.
        let restarted = media.startEarlyMedia(state: .ringing, manualActivation: false)
        #expect(restarted)
        media.forgetEarlyMedia()
        #expect(!media.isEarlyMediaPlaying)
        let afterRedirect = media.startEarlyMedia(state: .ringing, manualActivation: false)
        #expect(!afterRedirect)
    }

    @Test func theAppsAudioGoesToEachNewStreamOnce() {
        var media = CallMediaState()
        let first = SessionKey(raw: 1)
        let second = SessionKey(raw: 2)
        var given: [Bool] = []
        given.append(media.pendingAudio(for: first) != nil)
        media.setAudio(CallAudio())
        given.append(media.pendingAudio(for: first) != nil)
        given.append(media.pendingAudio(for: first) != nil)
        // A redirection's new session gets it too; a new audio goes to the current one again.
        given.append(media.pendingAudio(for: second) != nil)
        media.setAudio(CallAudio())
        given.append(media.pendingAudio(for: second) != nil)
        #expect(given == [false, true, false, true, true])
    }
}
