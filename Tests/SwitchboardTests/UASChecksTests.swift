import Foundation
import Switchboard
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The provider's user agent answers the RFC 3261 §8.2.2-8.2.3 checks (RFC 4475 §3.3.2, §3.3.5, §3.3.6) before
/// any call is offered to the delegate.
@Suite("CallProvider: UAS request checks", .serialized)
struct UASChecksTests {
    @Test(arguments: [
        ("OPTIONS nobodyKnowsThisScheme:opaque", "OPTIONS", "", "", "SIP/2.0 416", nil),
        (
            "OPTIONS sip:bob@127.0.0.1", "OPTIONS", "Require: nothingSupportsThis\r\n", "", "SIP/2.0 420",
            "Unsupported: nothingSupportsThis"
        ),
        (
            "INVITE sip:bob@127.0.0.1", "INVITE", "Content-Type: application/unknownformat\r\n", "<x/>\r\n",
            "SIP/2.0 415", "Accept: application/sdp"
        ),
    ])
    func checkedRequestsAreRefused(
        requestLine: String, method: String, extra: String, body: String, status: String, header: String?
    ) throws {
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")])
        configuration.t1 = .milliseconds(100)
        let provider = try CallProvider(configuration: configuration)
        defer { provider.invalidate(timeout: .seconds(2)) }
        let address = try #require(provider.listeners.first { $0.transport == .udp }?.address)
        let port = try #require(UInt16(address.split(separator: ":").last ?? ""))
        let peer = try SilentUDPPeer()
        defer { peer.close() }
        let request =
            "\(requestLine) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(peer.port);rport;branch=z9hG4bKuaschecks1\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:bob@127.0.0.1>\r\nFrom: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "Call-ID: uaschecks@127.0.0.1\r\nCSeq: 1 \(method)\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n"
            + body
        let response = try peer.exchange(request, port: port)
        #expect(response.hasPrefix(status))
        if let header { #expect(response.contains("\r\n\(header)")) }
    }
}

extension SilentUDPPeer {
    /// Sends `text` to 127.0.0.1:`port` and returns the first datagram that comes back (3 s at most).
    func exchange(_ text: String, port: UInt16) throws -> String {
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &destination.sin_addr)
        destination.sin_port = port.bigEndian
        let bytes = Array(text.utf8)
        let sent = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard sent == bytes.count else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { throw POSIXError(.ETIMEDOUT) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
