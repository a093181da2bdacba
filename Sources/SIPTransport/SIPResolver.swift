import CSystem
import Dispatch
public import SIPMessage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where and how to resolve.
public struct ResolverConfiguration: Sendable {
    /// An IPv4 name server to ask instead of the system's (tests point this at dnsmasq on loopback).
    public var nameServer: SocketAddress?
    /// Seconds per attempt and number of attempts for each query.
    public var timeoutSeconds: Int32
    public var attempts: Int32
    /// Read before DNS for A/AAAA (like glibc); `nil` skips it.
    public var hostsFile: String?
    /// Transports this element supports; others are skipped in NAPTR and SRV results.
    public var transports: [TransportProtocol]

    public init(
        nameServer: SocketAddress? = nil, timeoutSeconds: Int32 = 2, attempts: Int32 = 2,
        hostsFile: String? = "/etc/hosts", transports: [TransportProtocol] = [.udp, .tcp, .tls, .ws, .wss]
    ) {
        self.nameServer = nameServer
        self.timeoutSeconds = timeoutSeconds
        self.attempts = attempts
        self.hostsFile = hostsFile
        self.transports = transports
    }
}

/// RFC 3263 server location: NAPTR -> SRV -> A/AAAA through glibc's resolver, /etc/hosts for names,
/// no DNS for numeric hosts. The result is an ordered list of destinations to try in turn (the caller moves
/// to the next on a transport error, a timeout or a 503).
///
/// Queries block, so `resolve` runs them on a private dispatch queue; the blocking form is `resolveNow`.
public struct SIPResolver: Sendable {
    public let configuration: ResolverConfiguration
    private static let queue = DispatchQueue(label: "switchboard.resolver", attributes: .concurrent)

    public init(configuration: ResolverConfiguration = ResolverConfiguration()) {
        self.configuration = configuration
    }

    /// Resolves `uri` off the caller's thread.
    public func resolve(_ uri: SIPURI) async throws(TransportError) -> [Destination] {
        let result: Result<[Destination], TransportError> = await withCheckedContinuation { continuation in
            SIPResolver.queue.async {
                continuation.resume(returning: Result { () throws(TransportError) in try self.resolveNow(uri) })
            }
        }
        return try result.get()
    }

    /// Resolves `uri` on the calling thread (blocking on DNS).
    public func resolveNow(_ uri: SIPURI) throws(TransportError) -> [Destination] {
        var generator = SystemRandomNumberGenerator()
        return try resolveNow(uri, using: &generator)
    }

    /// Resolves with a given random source (SRV weights).
    public func resolveNow(_ uri: SIPURI, using generator: inout some RandomNumberGenerator) throws(TransportError)
        -> [Destination]
    {
        let host = uri.host
        let domain = host.text
        let secure = uri.isSecure
        var explicit = uri.transport.flatMap(TransportProtocol.init(token:))
        if secure, explicit == .tcp { explicit = .tls }
        // RFC 7118 §5.2: a `sips:` URI with `transport=ws` is WSS.
        if secure, explicit == .ws { explicit = .wss }
        if let explicit, !configuration.transports.contains(explicit) {
            throw TransportError(.unreachable, "transport \(explicit) not supported")
        }
        let defaultTransport: TransportProtocol = secure ? .tls : .udp
        // TLS is verified against the SIP domain, never the resolved address (RFC 5922).
        let serverName: String? = host.kind == .hostname ? domain : nil

        // §4.1/§4.2: a numeric host needs no DNS.
        if host.kind != .hostname {
            let transport = explicit ?? defaultTransport
            guard let address = SocketAddress(ip: domain, port: uri.port ?? transport.defaultPort) else {
                throw TransportError(.invalidAddress, "bad address \(domain)")
            }
            return [Destination(transport: transport, address: address, serverName: serverName)]
        }
        // A port means no NAPTR/SRV: A/AAAA only.
        if let port = uri.port {
            let transport = explicit ?? defaultTransport
            return try addresses(of: domain, port: port).map {
                Destination(transport: transport, address: $0, serverName: serverName)
            }
        }

        let session = try DNSSession(configuration: configuration)
        // §4.1: NAPTR when no transport is given.
        var srvNames: [(TransportProtocol, String)] = []
        if let explicit {
            srvNames = [(explicit, SIPResolver.srvName(explicit, domain: domain, secure: secure))]
        } else {
            let naptr = session.naptr(domain).filter { $0.flags.lowercased() == "s" }
                .sorted { ($0.order, $0.preference) < ($1.order, $1.preference) }
            for record in naptr {
                guard let transport = SIPResolver.transport(forNAPTRService: record.service, secure: secure),
                    configuration.transports.contains(transport)
                else { continue }
                srvNames.append((transport, record.replacement))
            }
            if srvNames.isEmpty {
                // No usable NAPTR: try the SRV names of the supported transports (§4.1).
                let order: [TransportProtocol] = secure ? [.tls] : [.udp, .tcp, .tls]
                for transport in order where configuration.transports.contains(transport) {
                    let name = SIPResolver.srvName(transport, domain: domain, secure: secure)
                    if !session.srv(name).isEmpty { srvNames.append((transport, name)) }
                }
            }
        }

        var destinations: [Destination] = []
        for (transport, name) in srvNames {
            for record in SIPResolver.orderSRV(session.srv(name), using: &generator) {
                for address in (try? addresses(of: record.target, port: record.port, session: session)) ?? [] {
                    destinations.append(Destination(transport: transport, address: address, serverName: serverName))
                }
            }
        }
        if destinations.isEmpty {
            // §4.2: no SRV records: A/AAAA of the domain with the default port.
            let transport = explicit ?? defaultTransport
            destinations = try addresses(of: domain, port: transport.defaultPort, session: session).map {
                Destination(transport: transport, address: $0, serverName: serverName)
            }
        }
        return destinations
    }

    /// The SRV name RFC 3263 §4.2 queries for an explicit transport: `_sip`, or `_sips` for TLS and WSS, and
    /// the transport's label. RFC 7118 registers only the NAPTR services `SIP+D2W` and `SIPS+D2W`, both with
    /// the protocol WS in IANA's table, and no SRV labels; a NAPTR's replacement is used as it is. So WS and
    /// WSS use `_sip._ws` and `_sips._ws` (SIPS over WS, as `_sips._tcp` is SIPS over TCP); `_sips._wss`
    /// would name a protocol RFC 7118 does not have, as `transport=wss` does (its §5.2 defines only `ws`).
    static func srvName(_ transport: TransportProtocol, domain: String, secure: Bool) -> String {
        switch transport {
        case .udp: "_sip._udp.\(domain)"
        case .tcp: "_sip._tcp.\(domain)"
        case .tls: "_sips._tcp.\(domain)"
        case .ws: "_sip._ws.\(domain)"
        case .wss: "_sips._ws.\(domain)"
        }
    }

    static func transport(forNAPTRService service: String, secure: Bool) -> TransportProtocol? {
        switch service.uppercased() {
        case "SIP+D2U": secure ? nil : .udp
        case "SIP+D2T": secure ? nil : .tcp
        case "SIPS+D2T": .tls
        case "SIP+D2W": secure ? nil : .ws
        case "SIPS+D2W": .wss
        default: nil
        }
    }

    /// RFC 2782 order: by priority, and within one priority a weighted random order.
    static func orderSRV(_ records: [DNSSession.SRV], using generator: inout some RandomNumberGenerator)
        -> [DNSSession.SRV]
    {
        var result: [DNSSession.SRV] = []
        let byPriority = Dictionary(grouping: records, by: \.priority).sorted { $0.key < $1.key }
        for (_, group) in byPriority {
            // Zero weights first, as RFC 2782 suggests, so they get a small chance.
            var remaining = group.sorted { $0.weight < $1.weight }
            while !remaining.isEmpty {
                let total = remaining.reduce(0) { $0 + Int($1.weight) }
                var pick = total > 0 ? Int.random(in: 0...total, using: &generator) : 0
                var index = 0
                for (i, record) in remaining.enumerated() {
                    pick -= Int(record.weight)
                    if pick <= 0 {
                        index = i
                        break
                    }
                }
                result.append(remaining.remove(at: index))
            }
        }
        return result
    }

    /// A/AAAA for `name`: /etc/hosts first, then DNS (the configured server or getaddrinfo).
    func addresses(of name: String, port: UInt16, session: DNSSession? = nil) throws(TransportError) -> [SocketAddress]
    {
        if let literal = SocketAddress(ip: name, port: port) { return [literal] }
        if let file = configuration.hostsFile {
            let fromFile = HostsFile.lookup(name, in: file).map { $0.with(port: port) }
            if !fromFile.isEmpty { return fromFile }
        }
        var found: [SocketAddress] = []
        if configuration.nameServer != nil {
            let dns: DNSSession
            if let session { dns = session } else { dns = try DNSSession(configuration: configuration) }
            found = (dns.addresses(name, type: sb_ns_t_a) + dns.addresses(name, type: sb_ns_t_aaaa)).map {
                $0.with(port: port)
            }
        } else {
            found = SIPResolver.getaddrinfo(name, port: port)
        }
        guard !found.isEmpty else { throw TransportError(.unreachable, "\(name) does not resolve") }
        return found
    }

    static func getaddrinfo(_ name: String, port: UInt16) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard Glibc.getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var result: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let addr = entry.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: addr, count: Int(entry.pointee.ai_addrlen)))
                }
                if let address = SocketAddress(storage), !result.contains(address.with(port: port)) {
                    result.append(address.with(port: port))
                }
            }
            cursor = entry.pointee.ai_next
        }
        return result
    }
}
