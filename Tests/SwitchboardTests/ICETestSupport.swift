import Foundation
import SIPTransport
import STUN
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// Two providers on hosts of their own in a virtual world (Alice 10.0.0.1, Bob 10.0.0.2), each with a tone
/// out and a recording in, for the ICE tests.
struct ICEPair {
    static let aliceHost = "10.0.0.1"
    static let bobHost = "10.0.0.2"

    let world: VirtualWorld
    let alice: CallProvider
    let bob: CallProvider
    let aliceDelegate: RecordingDelegate
    let bobDelegate: RecordingDelegate
    let aliceController: CallController
    let bobController: CallController
    let heardByAlice = MediaCallTests.Recording()
    let heardByBob = MediaCallTests.Recording()

    init(
        seed: UInt64 = 7, hosts: (alice: String, bob: String) = (aliceHost, bobHost),
        world existing: VirtualWorld? = nil, target: String? = nil,
        alice configureAlice: (inout CallProviderConfiguration) -> Void = { _ in },
        bob configureBob: (inout CallProviderConfiguration) -> Void = { _ in }
    ) throws {
        let world = existing ?? VirtualWorld(seed: seed)
        self.world = world
        aliceDelegate = RecordingDelegate(world: world)
        bobDelegate = RecordingDelegate(world: world)
        func configuration(_ user: String, tone: Double, into recording: MediaCallTests.Recording)
            -> CallProviderConfiguration
        {
            var configuration = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:\(user)@example.com")],
                listeners: [.init(.udp, "0.0.0.0:5060")])
            configuration.t1 = .milliseconds(100)
            configuration.actionTimeout = .seconds(2)
            configuration.codecs = [.pcmu]
            configuration.audio = MediaCallTests.audio(tone: tone, into: recording)
            return configuration
        }
        var a = configuration("alice", tone: 1000, into: heardByAlice)
        configureAlice(&a)
        var b = configuration("bob", tone: 440, into: heardByBob)
        configureBob(&b)
        alice = try world.makeProvider(configuration: a, host: hosts.alice)
        bob = try world.makeProvider(configuration: b, host: hosts.bob)
        alice.setDelegate(aliceDelegate, queue: nil)
        bob.setDelegate(bobDelegate, queue: nil)
        aliceController = CallController(provider: alice)
        bobController = CallController(provider: bob)
        bobURI = target ?? "sip:bob@\(hosts.bob):5060"
    }

    let bobURI: String

    /// Alice calls Bob and Bob answers; both UUIDs once both sides are connected.
    func connect(within seconds: Double = 15) async throws -> (alice: UUID, bob: UUID) {
        let uuid = try await aliceController.startCall(to: Handle(type: .generic, value: bobURI))
        let invite = try #require(await bobDelegate.invite(seconds: seconds))
        try await bobController.answerCall(invite.callUUID)
        _ = try #require(await aliceDelegate.connected(uuid, seconds: seconds))
        _ = try #require(await bobDelegate.connected(invite.callUUID, seconds: seconds))
        return (uuid, invite.callUUID)
    }

    /// Each side hears the other's tone 20 dB above its own, in the last second of its recording.
    var hearsBothWays: Bool {
        MediaCallTests.separation(heardByBob, wanted: 1000, unwanted: 440) >= 20
            && MediaCallTests.separation(heardByAlice, wanted: 440, unwanted: 1000) >= 20
    }

    /// The connected event's snapshot of a call.
    func connectedCall(_ delegate: RecordingDelegate, _ uuid: UUID) -> Call? {
        delegate.events.withLock { $0 }.first { $0.kind == .connected && $0.call?.uuid == uuid }?.call
    }

    /// Every SIP message of the run, as text.
    var sipTrace: String { world.network.sipTrace }

    /// The values of an SDP attribute in the SIP messages Alice or Bob sent, in order.
    func attributeValues(_ name: String, from host: String) -> [String] {
        world.network.records.filter { $0.isSIP && $0.source.host == host }.flatMap { record in
            String(decoding: record.bytes, as: UTF8.self).split(separator: "\r\n").compactMap { line in
                line.hasPrefix("a=\(name):") ? String(line.dropFirst(name.count + 3)) : nil
            }
        }
    }

    func close() {
        alice.invalidate(timeout: .seconds(2))
        bob.invalidate(timeout: .seconds(2))
    }
}

/// A STUN server on a scripted peer: every Binding request gets a success naming where it came from.
final class ScriptedSTUNServer: Sendable {
    /// A counter the peer's handler can share.
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    let peer: ScriptedPeer
    let count = Count()

    /// How many requests it answered.
    var answered: Int { count.value.load(ordering: .relaxed) }

    init(world: VirtualWorld, host: String, port: UInt16 = 3478) throws {
        let peer = try ScriptedPeer(world: world, host: host, port: port)
        self.peer = peer
        let count = self.count
        peer.onDatagram { bytes, source in
            guard let request = try? STUNReceivedMessage(decoding: bytes), request.message.method == .binding,
                request.message.messageClass == .request, let mapped = STUNTransportAddress(source)
            else { return }
            let response = STUNMessage(
                .successResponse, .binding, transactionID: request.message.transactionID,
                attributes: [.xorMappedAddress(mapped, transactionID: request.message.transactionID)])
            count.value.add(1, ordering: .relaxed)
            peer.send(bytes: response.encoded(fingerprint: true), to: source)
        }
    }
}
