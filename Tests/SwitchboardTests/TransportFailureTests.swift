import SIPTransport
import Testing

@testable import Switchboard

/// The app's view of a transport error: each code a kind, TLS failures with a phrase naming them.
@Suite struct TransportFailureTests {
    @Test(arguments: [
        (TransportError.Code.nameMismatch, TransportFailure.Kind.certificateNameMismatch),
        (.untrustedCertificate, .untrustedCertificate), (.expiredCertificate, .expiredCertificate),
        (.handshakeFailed, .tlsHandshakeFailed), (.webSocketUpgradeFailed, .webSocketUpgradeRefused),
        (.connectionRefused, .connectionRefused), (.connectionClosed, .connectionClosed),
        (.unreachable, .unreachable), (.timedOut, .timedOut), (.system, .other), (.flowDead, .other),
    ])
    func eachCodeHasItsKind(code: TransportError.Code, kind: TransportFailure.Kind) {
        let failure = TransportFailure(TransportError(code, "detail"))
        #expect(failure.kind == kind)
        #expect((failure.reasonPhrase != nil) == kind.isTLS)
        // `other` keeps the transport's own name for what happened.
        #expect(failure.detail == (kind == .other ? "\(code): detail" : "detail"))
    }
}
