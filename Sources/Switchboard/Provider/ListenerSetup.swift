import Foundation
import SIPTransport

/// Opens the provider's listeners: UDP first, every listener on port 0 of one host sharing the port the
/// first got, and the whole set tried again (a few times) when that port is taken for another transport.
struct ListenerSetup {
    let transport: SIPTransportLayer
    /// `CallProviderConfiguration.listeners`.
    let configured: [CallProviderConfiguration.Listener]
    /// Whether a TLS listener has a certificate to present.
    let hasCertificate: Bool

    init(transport: SIPTransportLayer, configuration: CallProviderConfiguration) {
        self.transport = transport
        configured = configuration.listeners
        hasCertificate = configuration.tls.certificateFile != nil
    }

    /// How many times the set is opened before a taken shared port is reported.
    static let attempts = 8

    /// The listeners to open, in order: the configured ones (UDP and TCP on any address when none is), UDP
    /// first. A port 0 is then picked among free UDP ports (a busy host can hold thousands of UDP sockets,
    /// and few TCP ones), and TCP/TLS share it. Pure.
    static func plan(_ configured: [CallProviderConfiguration.Listener]) -> [CallProviderConfiguration.Listener] {
        let listeners = configured.isEmpty ? [.init(.udp, "0.0.0.0:0"), .init(.tcp, "0.0.0.0:0")] : configured
        return listeners.filter { $0.transport == .udp } + listeners.filter { $0.transport != .udp }
    }

    /// The address a listener names (`:5060` is any IPv4 address); nil when it does not parse. Pure.
    static func address(of listener: CallProviderConfiguration.Listener) -> SocketAddress? {
        CallProviderConfiguration.Listener.socketAddress(listener.address, transport: listener.transport)
    }

    /// Opens the configured listeners (see `plan`); returns the first failure.
    func open() -> CallError? {
        let listeners = Self.plan(configured)
        // The port UDP got may be taken for TCP (another process's connection): then every listener opened
        // is closed and the kernel picks again, a few times.
        var outcome = open(listeners: listeners)
        for _ in 1..<Self.attempts {
            guard case .sharedPortTaken(_, let opened) = outcome else { break }
            for address in opened { transport.stopListening(at: address) }
            outcome = open(listeners: listeners)
        }
        switch outcome {
        case .opened: return nil
        case .failed(let error), .sharedPortTaken(let error, _): return error
        }
    }

    /// Where the transport listens, by transport and family (`udp:127.0.0.1:40612`).
    static func bound(on transport: SIPTransportLayer) -> [CallProviderConfiguration.Listener] {
        var out: [CallProviderConfiguration.Listener] = []
        for kind in TransportProtocol.allCases {
            for family in [SocketAddress.Family.ipv4, .ipv6] {
                guard let address = transport.listeningAddress(kind, family: family) else { continue }
                out.append(.init(SIPTransportKind(kind), address.description))
            }
        }
        return out
    }

    private enum Outcome {
        case opened
        case failed(CallError)
        /// A port picked for one transport was taken for another; `opened` are the listeners bound so far.
        case sharedPortTaken(CallError, opened: [SocketAddress])
    }

    /// Opens `listeners` in order; those on port 0 of one host share the port the first of them got.
    private func open(listeners: [CallProviderConfiguration.Listener]) -> Outcome {
        var boundPort: [String: UInt16] = [:]
        var opened: [SocketAddress] = []
        for listener in listeners {
            let kind = listener.transport.transportProtocol
            if kind.isSecure, !hasCertificate {
                return .failed(
                    .configuration("listening on \(kind) needs tls.certificateFile and tls.privateKeyFile"))
            }
            guard var address = Self.address(of: listener) else {
                return .failed(.configuration("bad listener address \(listener.address)"))
            }
            let isPicked = address.port == 0
            var isShared = false
            if isPicked, let port = boundPort[address.host], let shared = SocketAddress(ip: address.host, port: port) {
                address = shared
                isShared = true
            }
            do throws(TransportError) {
                let bound = try transport.listen(kind, on: address, resource: listener.resource ?? "/")
                opened.append(bound)
                if isPicked || boundPort[address.host] == nil { boundPort[address.host] = bound.port }
            } catch {
                let failure = CallError.configuration("cannot listen on \(listener): \(error)")
                if isShared, error.errno == EADDRINUSE { return .sharedPortTaken(failure, opened: opened) }
                return .failed(failure)
            }
        }
        return .opened
    }
}
