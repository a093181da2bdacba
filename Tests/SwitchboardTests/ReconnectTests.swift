import Foundation
import Switchboard
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP socket on loopback for a hand-driven SIP peer.
private final class TCPPeer: @unchecked Sendable {
    // @unchecked Sendable: used by one test at a time; the buffer is touched only by the waiting call.
    let fd: Int32
    private var pending = ""

    private init(fd: Int32) { self.fd = fd }

    static func listener() throws -> (TCPPeer, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, ok else { throw POSIXError(.EADDRINUSE) }
        return (TCPPeer(fd: fd), UInt16(bigEndian: address.sin_port))
    }

    static func connect(port: UInt16) throws -> TCPPeer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard fd >= 0, ok else { throw POSIXError(.ECONNREFUSED) }
        return TCPPeer(fd: fd)
    }

    func accept(seconds: Double) -> TCPPeer? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) == 1 else { return nil }
        let client = Glibc.accept(fd, nil, nil)
        return client >= 0 ? TCPPeer(fd: client) : nil
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next SIP message (headers and a Content-Length body) within `seconds`.
    func message(seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let end = pending.range(of: "\r\n\r\n") {
                let head = String(pending[..<end.upperBound])
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let total = head.utf8.count + length
                if pending.utf8.count >= total {
                    let message = String(decoding: Array(pending.utf8).prefix(total), as: UTF8.self)
                    pending = String(decoding: Array(pending.utf8).dropFirst(total), as: UTF8.self)
                    return message
                }
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return nil }
            if poller.revents & Int16(POLLIN) != 0 {
                var buffer = [UInt8](repeating: 0, count: 8192)
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return nil }
                pending += String(decoding: buffer[0..<count], as: UTF8.self)
            }
        }
        return nil
    }

    func close() { _ = Glibc.close(fd) }

    static func header(_ name: String, in message: String) -> String? {
        message.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }
}

/// When the TCP connection an incoming call arrived on dies, the provider reports `reconnecting`,
/// re-establishes the session with a re-INVITE over a new connection, and reports `reconnected`.
@Suite("Reconnecting calls")
struct ReconnectTests {
    static let sdp =
        "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 17010 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"

    @Test func aLostConnectionIsReestablishedByReINVITE() async throws {
        let pair = try ProviderPair(bobConfiguration: { $0.listeners = [.init(.tcp, "127.0.0.1:0")] })
        defer { pair.close() }
        let bobPort = try #require(
            pair.bob.listeners.first { $0.transport == .tcp }.flatMap {
                UInt16($0.address.split(separator: ":").last ?? "")
            })
        let (listener, peerPort) = try TCPPeer.listener()
        defer { listener.close() }
        let caller = try TCPPeer.connect(port: bobPort)
        let callID = "reconnect-\(UInt32.random(in: 0...UInt32.max))"
        caller.send(
            """
            INVITE sip:bob@127.0.0.1:\(bobPort);transport=tcp SIP/2.0\r
            Via: SIP/2.0/TCP 127.0.0.1:\(peerPort);branch=z9hG4bK-r1-\(callID)\r
            Max-Forwards: 70\r
            From: <sip:carol@127.0.0.1>;tag=c1\r
            To: <sip:bob@127.0.0.1>\r
            Call-ID: \(callID)\r
            CSeq: 1 INVITE\r
            Contact: <sip:carol@127.0.0.1:\(peerPort);transport=tcp>\r
            Content-Type: application/sdp\r
            Content-Length: \(Self.sdp.utf8.count)\r
            \r
            \(Self.sdp)
            """)
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.answerCall(invite.callUUID)
        var ok: String?
        while let message = await offPool({ caller.message(seconds: 3) }) {
            if message.hasPrefix("SIP/2.0 200") {
                ok = message
                break
            }
        }
        let answer = try #require(ok)
        let to = try #require(TCPPeer.header("To", in: answer))
        caller.send(
            """
            ACK sip:bob@127.0.0.1:\(bobPort);transport=tcp SIP/2.0\r
            Via: SIP/2.0/TCP 127.0.0.1:\(peerPort);branch=z9hG4bK-r2-\(callID)\r
            Max-Forwards: 70\r
            From: <sip:carol@127.0.0.1>;tag=c1\r
            To: \(to)\r
            Call-ID: \(callID)\r
            CSeq: 1 ACK\r
            Content-Length: 0\r
            \r

            """)
        _ = try #require(await pair.bobDelegate.connected(invite.callUUID))

        // The connection dies; bob reconnects to carol's Contact with a re-INVITE.
        caller.close()
        #expect(
            await pair.bobDelegate.wait(seconds: 3) { if case .reconnecting(let c) = $0 { c.uuid } else { nil } }
                == invite.callUUID)
        let fresh = try #require(await offPool { listener.accept(seconds: 5) })
        defer { fresh.close() }
        let reinvite = try #require(await offPool { fresh.message(seconds: 5) })
        #expect(reinvite.hasPrefix("INVITE sip:carol@127.0.0.1"))
        var reply = "SIP/2.0 200 OK\r\n"
        for name in ["Via", "From", "To", "Call-ID", "CSeq"] {
            reply += "\(name): \(TCPPeer.header(name, in: reinvite) ?? "")\r\n"
        }
        reply += "Contact: <sip:carol@127.0.0.1:\(peerPort);transport=tcp>\r\n"
        reply += "Content-Type: application/sdp\r\nContent-Length: \(Self.sdp.utf8.count)\r\n\r\n\(Self.sdp)"
        fresh.send(reply)
        #expect(
            await pair.bobDelegate.wait(seconds: 3) { if case .reconnected(let c) = $0 { c.uuid } else { nil } }
                == invite.callUUID)
        let ack = await offPool { fresh.message(seconds: 3) }
        #expect(ack?.hasPrefix("ACK ") == true)
    }
}
