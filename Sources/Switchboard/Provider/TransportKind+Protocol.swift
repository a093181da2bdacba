import SIPTransport

/// The public transport names and the transport layer's, one to one.
extension SIPTransportKind {
    init(_ transport: TransportProtocol) {
        switch transport {
        case .udp: self = .udp
        case .tcp: self = .tcp
        case .tls: self = .tls
        case .ws: self = .ws
        case .wss: self = .wss
        }
    }

    var transportProtocol: TransportProtocol {
        switch code {
        case .udp: .udp
        case .tcp: .tcp
        case .tls: .tls
        case .ws: .ws
        case .wss: .wss
        }
    }
}
