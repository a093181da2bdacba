import Switchboard
import Testing

/// The public sets that can grow are structs with static members (STYLE.md "Errors that can grow"): they
/// compare, round-trip their raw values, list what this version knows, and need a `default:` in a `switch`.
@Suite("API that can grow")
struct APIGrowthTests {
    @Test func transportKindsRoundTripTheirRawValues() {
        #expect(SIPTransportKind.allCases == [.udp, .tcp, .tls, .ws, .wss])
        #expect(SIPTransportKind.allCases.map(\.rawValue) == ["udp", "tcp", "tls", "ws", "wss"])
        for kind in SIPTransportKind.allCases { #expect(SIPTransportKind(rawValue: kind.rawValue) == kind) }
        #expect(SIPTransportKind(rawValue: "sctp") == nil)
        #expect(SIPTransportKind.ws.defaultPort == 80)
        #expect(SIPTransportKind.wss.defaultPort == 443)
        #expect(SIPTransportKind(rawValue: "UDP") == nil)
        #expect("\(SIPTransportKind.tls)" == "tls")
        #expect(SIPTransportKind.udp != .tcp)
    }

    @Test func codecsAndPoliciesRoundTripTheirRawValues() {
        #expect(Codec.allCases == [.opus, .pcmu, .pcma])
        #expect(Codec(rawValue: "pcma") == .pcma)
        #expect(Codec(rawValue: "g722") == nil)
        #expect(SRTPPolicy.allCases.map(\.rawValue) == ["off", "optional", "mandatory"])
        #expect(SRTPPolicy(rawValue: "mandatory") == .mandatory)
        #expect(SRTPPolicy(rawValue: "dtls") == nil)
        #expect(Set(Codec.allCases).count == 3)
        #expect(SRTPKeying.allCases.map(\.rawValue) == ["sdes", "dtls"])
        #expect(SRTPSuite.allCases.map(\.rawValue) == ["aes-cm-80", "aes-cm-32", "aes-gcm-128"])
        #expect(MediaSecurityFailure.Kind(rawValue: "fingerprintMismatch") == .fingerprintMismatch)
    }

    @Test func endReasonsAndRegistrationKindsKeepTheirNames() {
        #expect(CallEndedReason.allCases.count == 8)
        #expect(CallEndedReason(rawValue: "mediaSecurityFailed") == .mediaSecurityFailed)
        #expect(CallEndedReason.remoteEnded.description == "remoteEnded")
        #expect(CallEndedReason(rawValue: "answeredElsewhere") == .answeredElsewhere)
        #expect(CallEndedReason(rawValue: "busy") == nil)
        #expect(
            CallEndDetails(reason: .failed, statusCode: 486, reasonPhrase: "Busy Here").description
                == "failed 486 Busy Here")
        #expect(RegistrationFailure.Kind.allCases.count == 7)
        #expect(RegistrationFailure.Kind(rawValue: "keepAliveTimeout") == .keepAliveTimeout)
        #expect(RegistrationFailure.Kind(rawValue: "nope") == nil)
        #expect(TransportFailure.Kind.allCases.count == 10)
        #expect(TransportFailure.Kind(rawValue: "certificateNameMismatch") == .certificateNameMismatch)
        #expect(TransportFailure.Kind(rawValue: "nope") == nil)
        #expect(TransportFailure.Kind.allCases.filter(\.isTLS).count == 4)
        let mismatch = TransportFailure(kind: .certificateNameMismatch, detail: "the certificate does not name it")
        #expect(mismatch.reasonPhrase == "TLS: certificate name mismatch")
        #expect(mismatch.description == "TLS: certificate name mismatch (the certificate does not name it)")
        let refused = TransportFailure(kind: .connectionRefused, detail: "connect: Connection refused")
        #expect(refused.reasonPhrase == nil)
        #expect(refused.description == "connectionRefused: connect: Connection refused")
        #expect(TransportFailure(kind: .other, detail: "system call failed: x").description == "system call failed: x")
    }

    @Test func aSwitchNeedsADefault() {
        func name(_ kind: SIPTransportKind) -> String {
            switch kind {
            case .udp: "datagrams"
            case .tcp, .tls: "a stream"
            default: "unknown transport \(kind.rawValue)"
            }
        }
        #expect(
            SIPTransportKind.allCases.map(name) == [
                "datagrams", "a stream", "a stream", "unknown transport ws", "unknown transport wss",
            ])
        func isRefusal(_ reason: CallEndedReason) -> Bool {
            switch reason {
            case .declinedElsewhere, .failed: true
            default: false
            }
        }
        #expect(CallEndedReason.allCases.filter(isRefusal) == [.failed, .declinedElsewhere])
    }

    @Test func callErrorsCompareByKindAndDetail() {
        let error = CallError.configuration("x")
        #expect(error.detail == "x")
        #expect(error.kind == .configuration)
        #expect(error == .configuration("x"))
        #expect(error != .configuration("y"))
        #expect(CallError.unknownCallUUID.detail == nil)
        #expect(CallError.unknownCallUUID == .unknownCallUUID)
        #expect(CallError.invalidHandle("sip:") != .invalidAction("sip:"))
        #expect(error.description == "configuration: x")
        #expect(CallError.unknownAccount("bob").description == "no account bob")
        #expect(CallError.emptyTransaction.description == "the transaction has no action")
        let thrown: any Error = CallError.unknownAccount("bob")
        #expect((thrown as? CallError)?.kind == .unknownAccount)
        switch error.kind {
        case .configuration: #expect(error.detail == "x")
        default: Issue.record("configuration error has kind \(error.kind)")
        }
    }
}
