import SIPTransport

extension TransportFailure {
    /// The app's view of a transport error. Pure.
    init(_ error: TransportError) {
        let kind: Kind =
            switch error.code {
            case .nameMismatch: .certificateNameMismatch
            case .untrustedCertificate: .untrustedCertificate
            case .expiredCertificate: .expiredCertificate
            case .handshakeFailed: .tlsHandshakeFailed
            case .webSocketUpgradeFailed: .webSocketUpgradeRefused
            case .connectionRefused: .connectionRefused
            case .connectionClosed: .connectionClosed
            case .unreachable: .unreachable
            case .timedOut: .timedOut
            default: .other
            }
        // A kind of its own says what happened; `other` keeps the transport's own name for it.
        self.init(kind: kind, detail: kind == .other ? error.description : error.detail)
    }
}
