import Testing

@testable import Switchboard

@Suite("Trace redaction")
struct TraceRedactionTests {
    @Test func credentialsNeverAppear() {
        let message =
            "REGISTER sip:example.com SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK1\r\nAuthorization: Digest username=\"alice\", response=\"c94ae52f769bdf96a53f18d18412a218\"\r\nproxy-authorization: Bearer abc.def.ghi\r\nContent-Length: 0\r\n\r\n"
        let out = String(decoding: CredentialRedaction.redact(Array(message.utf8)), as: UTF8.self)
        #expect(!out.contains("c94ae52f"))
        #expect(!out.contains("alice"))
        #expect(!out.contains("abc.def"))
        #expect(out.contains("Authorization: Digest <redacted>"))
        #expect(out.contains("proxy-authorization: Bearer <redacted>"))
        #expect(out.contains("Via: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK1"))
    }
}
