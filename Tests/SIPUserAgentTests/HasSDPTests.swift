import SIPMessage
import Testing

@testable import SIPUserAgent

/// `hasSDP` reads the usual `application/sdp` off the bytes: whatever the value, it says what the parsed
/// Content-Type says.
@Suite struct HasSDPTests {
    @Test(arguments: [
        "application/sdp", "Application/SDP", "APPLICATION/sdp", "application/sdp;charset=utf-8",
        "application/sdp ; x=1", "application / sdp", "application/sdpx", "application/sd", "text/plain",
        "multipart/mixed;boundary=a", "application/sdp, text/plain",
    ])
    func bytesAgreeWithTheParse(value: String) throws {
        let message = try request(
            """
            OPTIONS sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKsdp1
            Max-Forwards: 70
            From: <sip:alice@atlanta.example>;tag=a
            To: <sip:bob@biloxi.example>
            Call-ID: has-sdp-1
            CSeq: 1 OPTIONS
            Content-Type: \(value)


            """)
        let parsed = (try? message.headerFields.contentType)?.hasSameEssence(as: .sdp) ?? false
        #expect(message.hasSDP == parsed)
    }

    @Test func noContentTypeIsNoSDP() throws {
        let message = try request(
            """
            OPTIONS sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKsdp2
            Max-Forwards: 70
            From: <sip:alice@atlanta.example>;tag=a
            To: <sip:bob@biloxi.example>
            Call-ID: has-sdp-2
            CSeq: 1 OPTIONS


            """)
        #expect(!message.hasSDP)
    }
}
