import Foundation
import SIPTransport
import SwitchboardTesting
import Synchronization

/// A stateless SIP proxy and registrar on a public host of a virtual world, for calls between hosts behind
/// NATs (what Kamailio with `force_rport` and record-routing does in the interop suite, and never touching
/// SDP): it answers REGISTER and remembers where each came from (the NAT's mapping toward it), routes a request
/// to the mapping of its Request-URI's user or of the Contact it names, record-routes INVITEs so the dialog's
/// requests come back through it, and sends responses back along their Vias (`received`/`rport`).
final class NATProxy: Sendable {
    let peer: ScriptedPeer
    let host: String
    /// Like a session border controller that anchors nothing: the c= line of an INVITE's SDP is rewritten to
    /// the proxy's address (Content-Length follows), candidates untouched.
    let rewritesConnection: Bool
    private let state = Mutex(Routes())

    private struct Routes {
        /// A user's registration: where its REGISTER came from.
        var users: [String: SocketAddress] = [:]
        /// A Contact's `host:port`: where a message naming it came from.
        var contacts: [String: SocketAddress] = [:]
    }

    init(world: VirtualWorld, host: String, port: UInt16 = 5060, rewritesConnection: Bool = false) throws {
        peer = try ScriptedPeer(world: world, host: host, port: port)
        self.host = host
        self.rewritesConnection = rewritesConnection
        peer.onDatagram { [weak self] bytes, source in self?.arrived(bytes, from: source) }
    }

    private var me: String { "\(host):\(peer.address.port)" }

    private func arrived(_ bytes: [UInt8], from source: SocketAddress) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return }
        var lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let body = String(text[split.upperBound...])
        guard let start = lines.first, !start.isEmpty else { return }
        learnContact(lines, from: source)
        if start.hasPrefix("SIP/2.0 ") {
            forwardResponse(&lines, body: body)
        } else {
            forwardRequest(&lines, body: body, from: source)
        }
    }

    private func learnContact(_ lines: [String], from source: SocketAddress) {
        guard let contact = lines.first(where: { $0.lowercased().hasPrefix("contact:") }),
            let hostPort = Self.hostPort(ofURIIn: contact)
        else { return }
        state.withLock { $0.contacts[hostPort] = source }
    }

    private func forwardResponse(_ lines: inout [String], body: String) {
        guard let top = lines.firstIndex(where: { $0.hasPrefix("Via:") }), lines[top].contains(me) else { return }
        lines.remove(at: top)
        guard let next = lines.first(where: { $0.hasPrefix("Via:") }), let destination = Self.viaAddress(next) else {
            return
        }
        peer.send(lines.joined(separator: "\r\n") + "\r\n\r\n" + body, to: destination)
    }

    private func forwardRequest(_ lines: inout [String], body: String, from source: SocketAddress) {
        let start = lines[0]
        let method = String(start.prefix { $0 != " " })
        // §18.2.1: the sender's Via gets where it really came from.
        if let top = lines.firstIndex(where: { $0.hasPrefix("Via:") }) {
            var via = lines[top].replacingOccurrences(of: ";rport;", with: ";").replacingOccurrences(
                of: ";rport", with: "")
            via += ";received=\(source.host);rport=\(source.port)"
            lines[top] = via
        }
        if method == "REGISTER" {
            register(lines, from: source)
            return
        }
        lines.removeAll { $0.hasPrefix("Route:") && $0.contains(me) }
        // A branch of its own, the same for a CANCEL as for its INVITE: a hash of the sender's Via.
        let branch = String(Self.fnv1a(lines.first { $0.hasPrefix("Via:") } ?? ""), radix: 36)
        lines.insert("Via: SIP/2.0/UDP \(me);branch=z9hG4bKnat\(branch)", at: 1)
        let hasToTag = lines.contains { $0.hasPrefix("To:") && $0.contains(";tag=") }
        if method == "INVITE", !hasToTag { lines.insert("Record-Route: <sip:\(me);lr>", at: 2) }
        guard let destination = route(start) else { return }
        let forwarded = rewrite(body, method)
        if forwarded != body, let length = lines.firstIndex(where: { $0.hasPrefix("Content-Length:") }) {
            lines[length] = "Content-Length: \(forwarded.utf8.count)"
        }
        peer.send(lines.joined(separator: "\r\n") + "\r\n\r\n" + forwarded, to: destination)
    }

    /// An INVITE's body with its c= address replaced by the proxy's.
    private func rewrite(_ body: String, _ method: String) -> String {
        guard rewritesConnection, method == "INVITE" else { return body }
        return body.components(separatedBy: "\r\n").map { line in
            line.hasPrefix("c=IN IP4 ") ? "c=IN IP4 " + host : line
        }.joined(separator: "\r\n")
    }

    /// Where a request goes: the registration of its Request-URI's user at this proxy, or the mapping of the
    /// Contact it names, or the address it names.
    private func route(_ start: String) -> SocketAddress? {
        let parts = start.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        let uri = String(parts[1])
        let user = uri.dropFirst(4).prefix { $0 != "@" }
        guard let hostPort = Self.hostPort(ofURI: uri) else { return nil }
        return state.withLock { routes in
            if hostPort.hasPrefix(host + ":") || hostPort == host { return routes.users[String(user)] }
            return routes.contacts[hostPort]
        } ?? SocketAddress(parsing: hostPort, defaultPort: 5060)
    }

    private func register(_ lines: [String], from source: SocketAddress) {
        let to = lines.first { $0.hasPrefix("To:") } ?? ""
        if let uriStart = to.range(of: "sip:") {
            let user = to[uriStart.upperBound...].prefix { $0 != "@" }
            state.withLock { $0.users[String(user)] = source }
        }
        var response = ["SIP/2.0 200 OK"]
        for line in lines.dropFirst() {
            for name in ["Via:", "From:", "Call-ID:", "CSeq:", "Contact:"] where line.hasPrefix(name) {
                response.append(line)
            }
            if line.hasPrefix("To:") { response.append(line.contains(";tag=") ? line : line + ";tag=natproxy") }
        }
        response.append("Expires: 600")
        response.append("Content-Length: 0")
        peer.send(response.joined(separator: "\r\n") + "\r\n\r\n", to: source)
    }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0100_0000_01B3 }
    }

    /// `host:port` of the first SIP URI in a header line.
    static func hostPort(ofURIIn line: String) -> String? {
        guard let start = line.range(of: "sip:") else { return nil }
        return hostPort(ofURI: String(line[start.lowerBound...]))
    }

    /// `host:port` of a SIP URI (5060 when it names no port).
    static func hostPort(ofURI uri: String) -> String? {
        var rest = uri.hasPrefix("sip:") ? Substring(uri.dropFirst(4)) : Substring(uri)
        if let at = rest.firstIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let hostPort = rest.prefix { $0 != ";" && $0 != ">" && $0 != "?" }
        guard !hostPort.isEmpty else { return nil }
        return hostPort.contains(":") ? String(hostPort) : "\(hostPort):5060"
    }

    /// Where a Via sends responses: `received`/`rport` when present, else its sent-by.
    static func viaAddress(_ line: String) -> SocketAddress? {
        let value = line.dropFirst(4).trimmingCharacters(in: .whitespaces)
        let fields = value.split(separator: ";")
        guard let sentBy = fields.first?.split(separator: " ").last else { return nil }
        var host = String(sentBy.prefix { $0 != ":" })
        var port = UInt16(sentBy.split(separator: ":").last ?? "") ?? 5060
        for field in fields.dropFirst() {
            if field.hasPrefix("received=") { host = String(field.dropFirst(9)) }
            if field.hasPrefix("rport="), let value = UInt16(field.dropFirst(6)) { port = value }
        }
        return SocketAddress(ip: host, port: port)
    }
}
