import Foundation
import SIPTransport
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// The testing product keeps its promises: no sockets, the same run twice, dates and callbacks from the
/// virtual loop.
@Suite struct VirtualWorldTests {
    @Test func theSameCallTwiceGivesTheSameSIPTrace() async throws {
        let first = try await Scenario.callAndHangUp(seed: 42, srtp: .mandatory)
        let second = try await Scenario.callAndHangUp(seed: 42, srtp: .mandatory)
        #expect(first.contains("INVITE sip:bob@10.0.0.2"))
        #expect(first.contains("a=crypto:"))
        #expect(first.contains("BYE sip:"))
        #expect(first == second)
    }

    @Test func anotherSeedGivesOtherIdentifiers() async throws {
        let first = try await Scenario.callAndHangUp(seed: 1, srtp: .off)
        let second = try await Scenario.callAndHangUp(seed: 2, srtp: .off)
        #expect(first != second)
    }

    @Test func delegateCallbacksRunOnTheWorldsLoop() async throws {
        let scenario = try Scenario(seed: 3)
        _ = try await scenario.connect()
        let seen = scenario.bobDelegate.loopChecks.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 })
    }

    @Test func callDatesComeFromTheVirtualClock() async throws {
        let scenario = try Scenario(seed: 4)
        scenario.world.advance(by: .seconds(100))
        let (alice, _) = try await scenario.connect()
        let call = try #require(scenario.alice.call(with: alice))
        let origin = scenario.world.wallClockOrigin
        #expect(call.startedAt.timeIntervalSince(origin) == 100)
        let connected = try #require(call.connectedAt)
        #expect(connected.timeIntervalSince(origin) > 100)
        #expect(connected.timeIntervalSince(origin) < 101)
    }

    @Test func registrationExpiryComesFromTheVirtualClock() throws {
        let world = VirtualWorld(seed: 5)
        let registrar = try ScriptedPeer(world: world, host: "10.0.0.9", port: 5060)
        let alice = try #require(SocketAddress(ip: "10.0.0.1", port: 5060))
        registrar.onReceive { text in
            guard text.hasPrefix("REGISTER ") else { return }
            registrar.send(Self.ok(text, extra: "Contact: <sip:alice@10.0.0.1:5060>;expires=300\r\n"), to: alice)
        }
        world.advance(by: .seconds(50))
        let delegate = Recorder(world: world)
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@10.0.0.9", registrar: "sip:10.0.0.9")],
            listeners: [.init(.udp, "0.0.0.0:5060")])
        configuration.t1 = .milliseconds(100)
        let provider = try world.makeProvider(configuration: configuration, host: "10.0.0.1")
        provider.setDelegate(delegate, queue: nil)
        #expect(world.run(until: { delegate.expiry.withLock { $0 } != nil }, within: .seconds(5)))
        let expiry = try #require(delegate.expiry.withLock { $0 })
        #expect(expiry.timeIntervalSince(world.wallClockOrigin) > 349.9)
        #expect(expiry.timeIntervalSince(world.wallClockOrigin) < 350.1)
        provider.invalidate(timeout: .seconds(1))
    }

    @Test func aCallThatWaitsOnTheNetworkReturnsAtTheInstantItsAnswerArrives() async throws {
        let scenario = try Scenario(seed: 6)
        scenario.world.network.setConditions(LinkConditions(latency: .milliseconds(40)))
        let (alice, bob) = (scenario.alice, Handle(type: .generic, value: "sip:bob@10.0.0.2"))
        let status = try await scenario.world.run(within: .seconds(5)) { try await alice.sendOptions(to: bob) }
        #expect(status == 200)
        // There and back over 40 ms links: the clock stopped at the 200, not at the limit.
        #expect(scenario.world.loop.elapsedTime == .milliseconds(80))
        scenario.world.network.setConditions(.down)
        await #expect(throws: VirtualWorld.TimedOut.self) {
            _ = try await scenario.world.run(within: .milliseconds(500)) { try await alice.sendOptions(to: bob) }
        }
        #expect(scenario.world.loop.elapsedTime == .milliseconds(580))
        alice.invalidate(timeout: .seconds(1))
        scenario.bob.invalidate(timeout: .seconds(1))
    }

    /// A 200 to a raw request, with its Via, From, To (tagged), Call-ID and CSeq.
    static func ok(_ request: String, extra: String) -> String {
        let lines = request.components(separatedBy: "\r\n")
        func field(_ name: String) -> [String] {
            lines.filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
        }
        var response = "SIP/2.0 200 OK\r\n"
        for line in field("Via") + field("From") { response += line + "\r\n" }
        for line in field("To") { response += line + ";tag=registrar\r\n" }
        for line in field("Call-ID") + field("CSeq") { response += line + "\r\n" }
        return response + extra + "Content-Length: 0\r\n\r\n"
    }
}

/// Alice (10.0.0.1) and Bob (10.0.0.2) in one world.
struct Scenario {
    let world: VirtualWorld
    let alice: CallProvider
    let bob: CallProvider
    let aliceDelegate: Recorder
    let bobDelegate: Recorder

    init(seed: UInt64, srtp: Switchboard.SRTPPolicy = .off) throws {
        world = VirtualWorld(seed: seed)
        aliceDelegate = Recorder(world: world)
        bobDelegate = Recorder(world: world)
        func configuration(_ user: String) -> CallProviderConfiguration {
            var configuration = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:\(user)@example.com", srtp: srtp)],
                listeners: [.init(.udp, "0.0.0.0:5060")])
            configuration.srtp = srtp
            return configuration
        }
        alice = try world.makeProvider(configuration: configuration("alice"), host: "10.0.0.1")
        bob = try world.makeProvider(configuration: configuration("bob"), host: "10.0.0.2")
        alice.setDelegate(aliceDelegate, queue: nil)
        bob.setDelegate(bobDelegate, queue: nil)
    }

    /// Alice calls Bob, Bob answers; both UUIDs once both are connected.
    func connect() async throws -> (alice: UUID, bob: UUID) {
        let uuid = try await CallController(provider: alice).startCall(
            to: Handle(type: .generic, value: "sip:bob@10.0.0.2"))
        #expect(world.run(until: { bobDelegate.invite.withLock { $0 } != nil }, within: .seconds(5)))
        let invite = try #require(bobDelegate.invite.withLock { $0 })
        try await CallController(provider: bob).answerCall(invite)
        #expect(world.run(until: { aliceDelegate.connected.withLock { $0 } }, within: .seconds(5)))
        return (uuid, invite)
    }

    /// A whole call (2 s of audio) and its SIP trace.
    static func callAndHangUp(seed: UInt64, srtp: Switchboard.SRTPPolicy) async throws -> String {
        let scenario = try Scenario(seed: seed, srtp: srtp)
        let (alice, _) = try await scenario.connect()
        scenario.world.advance(by: .seconds(2))
        try await CallController(provider: scenario.alice).endCall(alice)
        #expect(scenario.world.run(until: { scenario.bobDelegate.ended.withLock { $0 } }, within: .seconds(5)))
        scenario.alice.invalidate(timeout: .seconds(1))
        scenario.bob.invalidate(timeout: .seconds(1))
        return scenario.world.network.sipTrace
    }
}

/// Records what a scenario needs and whether each callback ran on the world's loop.
final class Recorder: CallProviderDelegate {
    let world: VirtualWorld
    let invite = Mutex<UUID?>(nil)
    let connected = Mutex(false)
    let ended = Mutex(false)
    let expiry = Mutex<Date?>(nil)
    let loopChecks = Mutex<[Bool]>([])

    init(world: VirtualWorld) { self.world = world }

    private func check() { loopChecks.withLock { $0.append(world.loop.inEventLoop) } }

    func providerDidReset(_ provider: CallProvider) { check() }
    func provider(_ provider: CallProvider, didReceive invite: CallInvite) {
        check()
        self.invite.withLock { $0 = invite.callUUID }
    }
    func provider(_ provider: CallProvider, callDidConnect call: Call) {
        check()
        connected.withLock { $0 = true }
    }
    func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {
        check()
        ended.withLock { $0 = true }
    }
    func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState) {
        check()
        if case .registered(let expires, _) = state { expiry.withLock { $0 = expires } }
    }
}
