import Foundation
import SIPTransport
import STUN
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// RFC 5626 outbound over UDP: the REGISTER asks for it, and once the registrar confirms it the flow is
/// checked with STUN Binding requests from the SIP socket (§4.4.2). A changed mapped address (the NAT made a
/// new binding) or a request that goes unanswered means the flow failed: Alice registers again at once (§4.5).
@Suite("Outbound over UDP: STUN keep-alives")
struct UDPOutboundTests {
    /// A UDP registrar on 127.0.0.2:5060 that answers REGISTERs with 200 (confirming outbound or not) and
    /// STUN Binding requests with the mapped address `mapped` says (nil: no answer).
    final class Registrar: Sendable {
        let peer: ScriptedPeer
        let registers = Mutex<[String]>([])
        let bindings = Mutex<[SocketAddress]>([])
        let mapped: @Sendable (Int) -> STUNTransportAddress?

        init(world: VirtualWorld, confirms: Bool, mapped: @escaping @Sendable (Int) -> STUNTransportAddress?) throws {
            peer = try ScriptedPeer(world: world, host: "127.0.0.2", port: 5060)
            self.mapped = mapped
            peer.onDatagram { [self] bytes, source in
                if bytes.first.map({ $0 < 4 }) == true {
                    self.binding(bytes, from: source)
                } else {
                    let register = SIPText(String(decoding: bytes, as: UTF8.self))
                    self.registers.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
                    let extra = confirms ? ["Require: outbound", "Flow-Timer: 10"] : []
                    self.peer.send(RegistrationFlowReuseTests.ok(register, extra: extra), to: source)
                }
            }
        }

        private func binding(_ bytes: [UInt8], from source: SocketAddress) {
            guard let request = try? STUNReceivedMessage(decoding: bytes).message, request.method == .binding
            else { return }
            let count = bindings.withLock { list -> Int in
                list.append(source)
                return list.count
            }
            guard let address = mapped(count) else { return }
            let response = STUNMessage(
                .successResponse, .binding, transactionID: request.transactionID,
                attributes: [.xorMappedAddress(address, transactionID: request.transactionID)])
            peer.send(bytes: response.encoded(fingerprint: true), to: source)
        }
    }

    static let outside = STUNTransportAddress(address: .v4(0xCB00_7101), port: 40_000)
    static let rebound = STUNTransportAddress(address: .v4(0xCB00_7101), port: 40_002)

    func start(confirms: Bool, mapped: @escaping @Sendable (Int) -> STUNTransportAddress?) throws
        -> (VirtualWorld, CallProvider, Registrar)
    {
        let world = VirtualWorld(seed: 55)
        let registrar = try Registrar(world: world, confirms: confirms, mapped: mapped)
        var configuration = CallProviderConfiguration(
            accounts: [
                Account(
                    addressOfRecord: "sip:alice@127.0.0.2", id: "alice", registrar: "sip:127.0.0.2", transport: .udp,
                    keepAliveInterval: .seconds(30))
            ],
            listeners: [.init(.udp, "127.0.0.1:5060")])
        configuration.t1 = .milliseconds(500)
        let provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        return (world, provider, registrar)
    }

    func isRegistered(_ provider: CallProvider) -> Bool {
        if case .registered? = provider.registrationState(for: "alice") { return true }
        return false
    }

    @Test func aConfirmedUDPFlowIsCheckedBySTUNWithinTheFlowTimer() throws {
        let (world, provider, registrar) = try start(confirms: true) { _ in Self.outside }
        defer { provider.invalidate() }
        world.run(until: { isRegistered(provider) }, within: .seconds(5))
        let register = try #require(registrar.registers.withLock { $0.first })
        let binding = try #require(SIPText(register)["Contact"])
        #expect(binding.contains(";ob") && binding.contains("reg-id=1") && binding.contains("+sip.instance"))
        world.advance(by: .seconds(10))
        #expect(registrar.bindings.withLock { $0.count } == 1, "one STUN keep-alive within the 10 s Flow-Timer")
        // From the SIP socket: the flow's 5-tuple.
        #expect(registrar.bindings.withLock { $0.first } == SocketAddress(ip: "127.0.0.1", port: 5060))
        world.advance(by: .seconds(30))
        #expect(registrar.bindings.withLock { $0.count } >= 4)
        #expect(registrar.registers.withLock { $0.count } == 1, "an answered keep-alive changes nothing")
    }

    @Test func aChangedMappedAddressRegistersAgainAtOnce() throws {
        let (world, provider, registrar) = try start(confirms: true) { count in count == 1 ? Self.outside : Self.rebound
        }
        defer { provider.invalidate() }
        world.run(until: { isRegistered(provider) }, within: .seconds(5))
        world.run(until: { registrar.bindings.withLock { $0.count } == 2 }, within: .seconds(25))
        world.run(until: { registrar.registers.withLock { $0.count } == 2 }, within: .seconds(1))
        #expect(registrar.registers.withLock { $0.count } == 2, "no new REGISTER after the NAT's binding changed")
    }

    @Test func anUnansweredKeepAliveRegistersAgain() throws {
        let (world, provider, registrar) = try start(confirms: true) { _ in nil }
        defer { provider.invalidate() }
        world.run(until: { isRegistered(provider) }, within: .seconds(5))
        world.advance(by: .seconds(10))
        #expect(registrar.bindings.withLock { $0.count } >= 1)
        #expect(registrar.registers.withLock { $0.count } == 1, "still waiting on the request's retransmissions")
        // RFC 8489 §6.2.1: Rc = 7 sends, the last waited on for Rm x RTO (39.5 s in all).
        world.run(until: { registrar.registers.withLock { $0.count } == 2 }, within: .seconds(41))
        #expect(registrar.bindings.withLock { $0.count } == 7)
        #expect(registrar.registers.withLock { $0.count } == 2, "no new REGISTER after the keep-alive went unanswered")
    }

    @Test func withoutOutboundNoSTUNIsSent() throws {
        let (world, provider, registrar) = try start(confirms: false) { _ in Self.outside }
        defer { provider.invalidate() }
        world.run(until: { isRegistered(provider) }, within: .seconds(5))
        world.advance(by: .seconds(70))
        #expect(registrar.bindings.withLock { $0.isEmpty })
    }
}
