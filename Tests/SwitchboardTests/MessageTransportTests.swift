import Foundation
import Switchboard
import Testing

@Suite("CallProvider: MESSAGE over the account's transport")
struct MessageTransportTests {
    /// Bob listens on TCP only: the MESSAGE reaches him through the outbound proxy (Bob himself) only if the
    /// account's `transport: .tcp` applies to the proxy hop as well.
    @Test func aMessageGoesToTheOutboundProxyOverTheAccountsTransport() async throws {
        var b = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.tcp, "127.0.0.1:0")])
        b.t1 = .milliseconds(100)
        let bob = try CallProvider(configuration: b)
        let bobDelegate = RecordingDelegate()
        bob.setDelegate(bobDelegate, queue: nil)
        let bobAddress = try #require(bob.listeners.first { $0.transport == .tcp }?.address)
        var a = CallProviderConfiguration(
            accounts: [
                Account(
                    addressOfRecord: "sip:alice@127.0.0.1", outboundProxy: "sip:\(bobAddress)", transport: .tcp)
            ],
            listeners: [.init(.udp, "127.0.0.1:0"), .init(.tcp, "127.0.0.1:0")])
        a.t1 = .milliseconds(100)
        let alice = try CallProvider(configuration: a)
        defer {
            alice.invalidate(timeout: .seconds(1))
            bob.invalidate(timeout: .seconds(1))
        }
        let message = TextMessage(
            from: Handle(type: .generic, value: "sip:alice@127.0.0.1"),
            to: Handle(type: .generic, value: "sip:bob@\(bobAddress)"), body: Array("over tcp".utf8))
        let status = try await alice.send(message)
        #expect(status == 200)
        let received = await bobDelegate.wait { $0.message }
        #expect(received.map { String(decoding: $0.body, as: UTF8.self) } == "over tcp")
    }
}
