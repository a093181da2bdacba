import Switchboard
import Testing

@testable import SwitchboardCLI

/// `answer` hears only the kinds of event it acts on: the set it gives the provider and the steps of its
/// handler come from one mapping.
@Suite("answer: handled kinds")
struct AnswerHandledKindsTests {
    @Test func everyKindWithAStepIsHandledAndNoOther() {
        for quiet in [false, true] {
            let kinds = AnswerCommand.handledKinds(quiet: quiet)
            for kind in CallProviderEvent.Kind.allCases {
                #expect(kinds.contains(kind) == (AnswerCommand.step(for: kind, quiet: quiet) != nil), "\(kind)")
            }
        }
        // Every step is reached by some kind when not quiet: none is left unused.
        let reached = Set(CallProviderEvent.Kind.allCases.compactMap { AnswerCommand.step(for: $0, quiet: false) })
        #expect(reached == Set(AnswerCommand.Step.allCases))
        #expect(
            AnswerCommand.handledKinds(quiet: true) == [.registration, .invite, .connected, .transferred, .ended])
        #expect(
            AnswerCommand.handledKinds(quiet: false)
                == [.registration, .invite, .connected, .transferred, .ended, .updated, .dtmfReceived])
    }
}
