import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// The README's example, kept honest: a bot answers, hears digits over a lossy jittery link.
@Suite struct ReadmeExampleTests {
    final class Bot: CallProviderDelegate {
        let controller: CallController
        let digits = Mutex("")

        init(controller: CallController) { self.controller = controller }

        func providerDidReset(_ provider: CallProvider) {}
        func provider(_ provider: CallProvider, didReceive invite: CallInvite) {
            controller.request(CallTransaction(action: AnswerCallAction(call: invite.callUUID))) { _ in }
        }
        func provider(_ provider: CallProvider, call: Call, didReceiveDTMF digit: Character) {
            digits.withLock { $0.append(digit) }
        }
    }

    @Test func theBotAnswersAndHearsTheDigits() async throws {
        let world = VirtualWorld(seed: 7)
        let botProvider = try world.makeProvider(
            configuration: CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:bot@example.com")], listeners: [.init(.udp, "0.0.0.0:5060")]),
            host: "10.0.0.2")
        let bot = Bot(controller: CallController(provider: botProvider))
        botProvider.setDelegate(bot, queue: nil)
        let caller = try world.makeProvider(
            configuration: CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:alice@example.com")],
                listeners: [.init(.udp, "0.0.0.0:5060")]),
            host: "10.0.0.1")
        world.network.setConditions(LinkConditions(latency: .milliseconds(40), jitter: .milliseconds(20), loss: 0.02))
        let controller = CallController(provider: caller)
        let call = try await controller.startCall(to: Handle(type: .generic, value: "sip:bot@10.0.0.2"))
        #expect(world.run(until: { caller.call(with: call)?.state == .connected }, within: .seconds(5)))
        try await controller.playDTMF(call, digits: "42")
        world.advance(by: .seconds(2))
        #expect(bot.digits.withLock { $0 } == "42")
        #expect(world.network.sipTrace.contains("INVITE sip:bot@10.0.0.2 SIP/2.0"))
        caller.invalidate(timeout: .seconds(1))
        botProvider.invalidate(timeout: .seconds(1))
    }
}
