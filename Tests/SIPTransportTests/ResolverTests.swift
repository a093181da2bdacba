import Foundation
import SIPMessage
import Testing

@testable import SIPTransport

/// A dnsmasq on 127.0.0.1 serving NAPTR, SRV and A records for the tests, stopped by PID.
final class DNSServer {
    let process: Process
    let port: UInt16

    /// Starts dnsmasq on a random free port and waits until it answers. A port another process holds makes
    /// dnsmasq exit at once, so that start is retried on a new port. The wait is a liveness guard, not a
    /// timing check: a busy machine may take seconds to schedule the new process.
    ///
    /// The ports come from 10000-19999, below the kernel's ephemeral range and the RTP ranges the tests and
    /// benchmarks use, and each is checked free first: a UDP socket bound to it with SO_REUSEADDR (as RTP
    /// sockets are) would let dnsmasq bind too and then take its queries, leaving it silent.
    init(records: [String]) throws {
        var lastPort: UInt16 = 0
        for _ in 0..<20 {
            let port = UInt16.random(in: 10_000...19_999)
            lastPort = port
            guard Self.isFree(port) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/dnsmasq")
            process.arguments =
                [
                    "--keep-in-foreground", "--no-resolv", "--no-hosts", "--port=\(port)",
                    "--listen-address=127.0.0.1", "--bind-interfaces", "--log-facility=-", "--conf-file=/dev/null",
                ] + records
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilAnswering(process, port: port) {
                self.process = process
                self.port = port
                return
            }
            Self.terminate(process)
        }
        throw Failure("dnsmasq did not start (last port tried \(lastPort))")
    }

    /// Whether no socket holds UDP or TCP `port` on 127.0.0.1: a bind without SO_REUSEADDR fails if any does.
    private static func isFree(_ port: UInt16) -> Bool {
        for type in [Int32(SOCK_DGRAM.rawValue), Int32(SOCK_STREAM.rawValue)] {
            let fd = socket(AF_INET, type, 0)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { return false }
        }
        return true
    }

    /// True once dnsmasq answers on `port`; false when it exits first or stays silent for 60 seconds.
    private static func waitUntilAnswering(_ process: Process, port: UInt16) -> Bool {
        let resolver = SIPResolver(
            configuration: ResolverConfiguration(
                nameServer: .loopback(port: port), timeoutSeconds: 1, attempts: 1, hostsFile: nil))
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, process.isRunning {
            if let found = try? resolver.resolveNow(SIPURI("sip:ready.test")), !found.isEmpty { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Stops dnsmasq by PID with SIGKILL: a child spawned from the test runner inherits its blocked signal
    /// mask, so SIGTERM would stay pending forever.
    func stop() { Self.terminate(process) }

    private static func terminate(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }
}

@Suite("RFC 3263 resolution against dnsmasq", .serialized)
struct ResolverTests {
    static let records = [
        "--host-record=ready.test,127.0.0.1",
        "--host-record=pbx.example.test,127.0.0.1",
        "--host-record=backup.example.test,127.0.0.2",
        "--host-record=tls.example.test,127.0.0.3",
        "--host-record=plain.test,127.0.0.4",
        "--host-record=v6.test,::1",
        "--naptr-record=example.test,10,50,s,SIP+D2U,,_sip._udp.example.test",
        "--naptr-record=example.test,20,50,s,SIPS+D2T,,_sips._tcp.example.test",
        "--naptr-record=example.test,30,50,s,SIP+D2X,,_sip._xyz.example.test",
        "--srv-host=_sip._udp.example.test,pbx.example.test,5060,10,50",
        "--srv-host=_sip._udp.example.test,backup.example.test,5062,20,50",
        "--srv-host=_sips._tcp.example.test,tls.example.test,5061,10,50",
        "--srv-host=_sip._tcp.example.test,pbx.example.test,5070,10,50",
        "--srv-host=_sip._tcp.srvonly.test,pbx.example.test,5080,10,50",
        // SIP over WebSocket (RFC 7118): its two NAPTR services, and SRV names for explicit transports.
        "--naptr-record=ws.test,10,50,s,SIP+D2W,,_sip._ws.ws.test",
        "--naptr-record=ws.test,20,50,s,SIPS+D2W,,_sips._ws.ws.test",
        "--srv-host=_sip._ws.ws.test,pbx.example.test,8080,10,50",
        "--srv-host=_sips._ws.ws.test,tls.example.test,8443,10,50",
        "--srv-host=_sip._ws.wsdirect.test,pbx.example.test,8081,10,50",
        "--srv-host=_sips._ws.wsdirect.test,tls.example.test,8444,10,50",
    ]

    func withResolver(_ body: (SIPResolver) throws -> Void) throws {
        let server = try DNSServer(records: Self.records)
        defer { server.stop() }
        let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("sb-hosts-\(UUID().uuidString)")
        try "127.0.0.9\tmyhost.test alias.test\n# comment\n".write(to: hosts, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: hosts) }
        try body(
            SIPResolver(
                configuration: ResolverConfiguration(
                    nameServer: .loopback(port: server.port), timeoutSeconds: 1, attempts: 1, hostsFile: hosts.path)))
    }

    @Test func naptrThenSRVThenA() throws {
        try withResolver { resolver in
            let found = try resolver.resolveNow(SIPURI("sip:alice@example.test"))
            #expect(found.map(\.description) == ["udp:127.0.0.1:5060", "udp:127.0.0.2:5062", "tls:127.0.0.3:5061"])
            // TLS names the SIP domain, never the resolved address (RFC 5922).
            #expect(found.last?.serverName == "example.test")
        }
    }

    @Test func sipsUsesOnlySecureServices() throws {
        try withResolver { resolver in
            let found = try resolver.resolveNow(SIPURI("sips:alice@example.test"))
            #expect(found.map(\.description) == ["tls:127.0.0.3:5061"])
        }
    }

    @Test func transportParameterSkipsNAPTR() throws {
        try withResolver { resolver in
            let found = try resolver.resolveNow(SIPURI("sip:alice@example.test;transport=tcp"))
            #expect(found.map(\.description) == ["tcp:127.0.0.1:5070"])
        }
    }

    /// RFC 7118's NAPTR services pick WS and WSS (a `sips:` URI only WSS); an explicit `transport=ws` asks
    /// for `_sip._ws` (or `_sips._ws` for a `sips:` URI, which is WSS) as RFC 3263 §4.2 builds SRV names.
    @Test func webSocketServicesAndSRVNames() throws {
        try withResolver { resolver in
            let both = try resolver.resolveNow(SIPURI("sip:alice@ws.test"))
            #expect(both.map(\.description) == ["ws:127.0.0.1:8080", "wss:127.0.0.3:8443"])
            let secure = try resolver.resolveNow(SIPURI("sips:alice@ws.test"))
            #expect(secure.map(\.description) == ["wss:127.0.0.3:8443"])
            let ws = try resolver.resolveNow(SIPURI("sip:alice@wsdirect.test;transport=ws"))
            #expect(ws.map(\.description) == ["ws:127.0.0.1:8081"])
            let wss = try resolver.resolveNow(SIPURI("sips:alice@wsdirect.test;transport=ws"))
            #expect(wss.map(\.description) == ["wss:127.0.0.3:8444"])
            #expect(wss.first?.serverName == "wsdirect.test")
        }
    }

    @Test func srvWithoutNAPTR() throws {
        try withResolver { resolver in
            let found = try resolver.resolveNow(SIPURI("sip:alice@srvonly.test"))
            #expect(found.map(\.description) == ["tcp:127.0.0.1:5080"])
        }
    }

    @Test func addressRecordsWhenThereIsNoSRV() throws {
        try withResolver { resolver in
            let r295 = try resolver.resolveNow(SIPURI("sip:alice@plain.test")).map(\.description)
            #expect(r295 == ["udp:127.0.0.4:5060"])
            let r549 = try resolver.resolveNow(SIPURI("sips:alice@plain.test")).map(\.description)
            #expect(r549 == ["tls:127.0.0.4:5061"])
            #expect(try resolver.resolveNow(SIPURI("sip:alice@v6.test")).map(\.description) == ["udp:[::1]:5060"])
        }
    }

    @Test func anExplicitPortMeansAddressRecordsOnly() throws {
        try withResolver { resolver in
            // example.test has no address record of its own: with a port, NAPTR/SRV are not consulted.
            #expect(throws: TransportError.self) { try resolver.resolveNow(SIPURI("sip:alice@example.test:5090")) }
            let plain = try resolver.resolveNow(SIPURI("sip:alice@plain.test:5070;transport=tcp"))
            #expect(plain.map(\.description) == ["tcp:127.0.0.4:5070"])
        }
    }

    @Test func hostsFileBeforeDNS() throws {
        try withResolver { resolver in
            let r523 = try resolver.resolveNow(SIPURI("sip:bob@alias.test")).map(\.description)
            #expect(r523 == ["udp:127.0.0.9:5060"])
        }
    }

    @Test func numericHostsNeedNoDNS() throws {
        let resolver = SIPResolver(configuration: ResolverConfiguration(nameServer: .loopback(port: 9), hostsFile: nil))
        let r592 = try resolver.resolveNow(SIPURI("sip:192.0.2.1")).map(\.description)
        #expect(r592 == ["udp:192.0.2.1:5060"])
        #expect(try resolver.resolveNow(SIPURI("sips:[::1]")).map(\.description) == ["tls:[::1]:5061"])
        let tcp = try resolver.resolveNow(SIPURI("sip:127.0.0.1:5070;transport=TCP"))
        #expect(tcp.map(\.description) == ["tcp:127.0.0.1:5070"])
        #expect(tcp.first?.serverName == nil)
    }

    @Test func unknownNamesFailCleanly() throws {
        try withResolver { resolver in
            #expect(throws: TransportError.self) { try resolver.resolveNow(SIPURI("sip:alice@nowhere.test")) }
        }
    }

    @Test func srvOrderFollowsPriorityAndWeight() {
        // Priority 10 always before 20; within 10, the weight-90 target wins most draws.
        let records = [
            DNSSession.SRV(priority: 20, weight: 0, port: 3, target: "c"),
            DNSSession.SRV(priority: 10, weight: 90, port: 1, target: "a"),
            DNSSession.SRV(priority: 10, weight: 10, port: 2, target: "b"),
        ]
        var generator = SystemRandomNumberGenerator()
        var firstA = 0
        for _ in 0..<1000 {
            let ordered = SIPResolver.orderSRV(records, using: &generator)
            #expect(ordered.last?.target == "c")
            if ordered.first?.target == "a" { firstA += 1 }
        }
        #expect(firstA > 800 && firstA < 980)
    }

    @Test func asyncResolveRunsOffTheCallerThread() async throws {
        let server = try DNSServer(records: Self.records)
        defer { server.stop() }
        let resolver = SIPResolver(
            configuration: ResolverConfiguration(nameServer: .loopback(port: server.port), hostsFile: nil))
        let found = try await resolver.resolve(SIPURI("sips:alice@example.test"))
        #expect(found.first?.transport == .tls)
    }
}
