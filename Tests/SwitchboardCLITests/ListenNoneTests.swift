import Switchboard
import Testing

@testable import SwitchboardCLI

/// `--listen none`: UDP on a free port only, whatever the command's default, so a TCP or TLS client is
/// reached over the connections it opens (its Contact names them).
@Suite struct ListenNoneTests {
    @Test func noneOpensOnlyUDPEvenWhereTheCommandHasADefault() throws {
        let values = ["listen": "none", "transport": "tls", "user": "carol", "registrar": "sip:127.0.0.1"]
        let needs = ProviderHarness.Needs(registers: true, defaultListen: "0.0.0.0:5061", target: nil)
        let configuration = try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
        #expect(configuration.listeners == [.init(.udp, "0.0.0.0:0")])
        #expect(configuration.accounts.first?.transport == .tls)
    }

    @Test func anAddressStillListensOnTheTransportAndUDP() throws {
        let values = ["listen": "127.0.0.1:0", "transport": "tcp"]
        let needs = ProviderHarness.Needs(registers: false, defaultListen: nil, target: nil)
        let configuration = try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
        #expect(configuration.listeners == [.init(.tcp, "127.0.0.1:0"), .init(.udp, "127.0.0.1:0")])
    }
}
