import Foundation
import Testing

@testable import Switchboard

/// CallKit's request-transaction errors, checked against a call table and the accounts before any action
/// reaches the delegate; and the one call-limit rule behind invites, start-call actions and REFERs.
@Suite("Glue: transaction checks and call admission")
struct TransactionCheckTests {
    private func check(
        _ calls: CallTable = CallTable(), maximumCalls: Int = 10, isWindingDown: Bool = false
    ) throws -> TransactionCheck {
        TransactionCheck(
            calls: calls, accounts: try Parts.accounts(),
            admission: CallAdmission(maximumCalls: maximumCalls, isWindingDown: isWindingDown),
            supportedHandleTypes: [.generic, .phoneNumber])
    }

    private let bob = Handle(type: .generic, value: "sip:bob@example.com")

    @Test func admissionCountsLiveCallsAndTheWindDown() {
        var admission = CallAdmission(maximumCalls: 2)
        #expect(admission.admitsIncoming(liveCalls: 1))
        #expect(!admission.admitsIncoming(liveCalls: 2))
        #expect(admission.admitsOutgoing(liveCalls: 1, starting: 0))
        #expect(!admission.admitsOutgoing(liveCalls: 1, starting: 1))
        admission.isWindingDown = true
        #expect(!admission.admitsIncoming(liveCalls: 0))
        // A REFER's new call counts only against the limit.
        #expect(admission.admitsReferral(liveCalls: 1))
        #expect(!admission.admitsReferral(liveCalls: 2))
    }

    @Test func emptyAndLateTransactionsAreRefused() throws {
        let open = try check()
        let closing = try check(isWindingDown: true)
        #expect(open.problem(with: CallTransaction(actions: [])) == .emptyTransaction)
        let start = CallTransaction(action: StartCallAction(call: UUID(), handle: bob))
        #expect(closing.problem(with: start) == .providerUnavailable)
        #expect(open.problem(with: start) == nil)
    }

    @Test func startCallActionsAreChecked() throws {
        let uuid = UUID()
        var calls = CallTable()
        calls.add(Parts.record(uuid))
        let open = try check()
        let again = try check(calls).problem(with: CallTransaction(action: StartCallAction(call: uuid, handle: bob)))
        #expect(again == .callUUIDAlreadyExists)
        let twice = CallTransaction(actions: [
            StartCallAction(call: UUID(), handle: bob), StartCallAction(call: UUID(), handle: bob),
        ])
        let overLimit = try check(calls, maximumCalls: 2).problem(with: twice)
        let withinLimit = try check(calls, maximumCalls: 3).problem(with: twice)
        #expect(overLimit == .maximumCallsReached)
        #expect(withinLimit == nil)
        let unknown = StartCallAction(call: UUID(), handle: bob, account: "dave")
        #expect(open.problem(with: CallTransaction(action: unknown)) == .unknownAccount("dave"))
        let mail = StartCallAction(call: UUID(), handle: Handle(type: .emailAddress, value: "bob@example.com"))
        #expect(open.problem(with: CallTransaction(action: mail))?.kind == .invalidAction)
        let bad = StartCallAction(call: UUID(), handle: Handle(type: .generic, value: "sip:"))
        #expect(open.problem(with: CallTransaction(action: bad))?.kind == .invalidHandle)
    }

    @Test func callActionsMustFitTheCallsState() throws {
        let ringing = Parts.record(direction: .incoming, state: .ringing)
        let connected = Parts.record(state: .connected)
        let ended = Parts.record(state: .ended)
        var calls = CallTable()
        for record in [ringing, connected, ended] { calls.add(record) }
        let check = try check(calls)
        func problem(_ action: CallAction) -> CallError? { check.problem(with: CallTransaction(action: action)) }

        #expect(problem(AnswerCallAction(call: ringing.uuid)) == nil)
        #expect(problem(AnswerCallAction(call: connected.uuid))?.kind == .invalidAction)
        #expect(problem(EndCallAction(call: ended.uuid))?.kind == .invalidAction)
        #expect(problem(EndCallAction(call: ringing.uuid)) == nil)
        #expect(problem(SetHeldCallAction(call: ringing.uuid, onHold: true))?.kind == .invalidAction)
        #expect(problem(PlayDTMFCallAction(call: connected.uuid, digits: "1")) == nil)
        #expect(problem(SetMutedCallAction(call: ended.uuid, muted: true)) == nil)
        #expect(problem(TransferCallAction(call: connected.uuid, replacing: ringing.uuid))?.kind == .invalidAction)
        #expect(problem(TransferCallAction(call: connected.uuid, to: bob)) == nil)
        #expect(problem(EndCallAction(call: UUID())) == .unknownCallUUID)
    }

    @Test func actionsOnACallStartedInTheSameTransactionPass() throws {
        let uuid = UUID()
        let transaction = CallTransaction(actions: [
            StartCallAction(call: uuid, handle: bob), SetMutedCallAction(call: uuid, muted: true),
        ])
        let problem = try check().problem(with: transaction)
        #expect(problem == nil)
    }
}
