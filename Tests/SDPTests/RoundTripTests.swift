import SDP
import Testing

@Suite("Parse, serialize, parse")
struct RoundTripTests {
    static let files =
        TestData.files(in: "offers") + TestData.files(in: "parsing") + TestData.files(in: "answers")
        + TestData.files(in: "ours")

    @Test("canonical files come back byte for byte", arguments: files)
    func byteExact(_ file: String) throws {
        let bytes = TestData.bytes(file)
        let session = try SessionDescription(parsing: bytes)
        #expect(session.serialized() == bytes)
        #expect(try SessionDescription(parsing: session.serialized()) == session)
    }

    @Test("LF-only input gives CRLF output and the same model", arguments: files)
    func lineFeedsOnly(_ file: String) throws {
        let bytes = TestData.bytes(file)
        let lf = bytes.filter { $0 != 0x0D }
        #expect(lf.count < bytes.count)
        let session = try SessionDescription(parsing: lf)
        #expect(session == (try SessionDescription(parsing: bytes)))
        #expect(session.serialized() == bytes)
    }

    @Test func aBuiltDescriptionRoundTrips() throws {
        var audio = MediaDescription(mediaType: .audio, port: 5004, transport: .rtpSAVP, formats: ["111", "0"])
        audio.append(RTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        audio.append(FormatParameters(format: "111", parameters: [.init("useinbandfec", "1"), .init("stereo", "0")]))
        audio.append(RTCPAttribute(port: 5005, connection: Connection(address: "2001:db8::5")))
        audio.append(SSRCAttribute(ssrc: 42, attribute: "cname", value: "x@y"))
        audio.append(SetupRole.actpass)
        audio.append(Fingerprint(hashFunction: "sha-256", bytes: [0xAB, 0x01, 0xFF]))
        audio.append(
            CryptoAttribute(
                tag: 7, suite: .aesCM128HMACSHA1_32,
                keyParameters: [
                    SRTPKeyParameters(
                        keySalt: Array(repeating: 9, count: 30), lifetime: .powerOfTwo(31),
                        mki: .init(value: 5, length: 2))
                ], sessionParameters: ["UNENCRYPTED_SRTCP"]))
        audio.setDirection(.recvonly)
        audio.bandwidths = [Bandwidth(type: "TIAS", value: 64000)]
        let session = SessionDescription(
            origin: Origin(sessionID: "99", sessionVersion: 3, address: "2001:db8::1"),
            connection: Connection(address: "2001:db8::1"), media: [audio])
        let text = session.description
        #expect(text.hasPrefix("v=0\r\no=- 99 3 IN IP6 2001:db8::1\r\ns=-\r\nc=IN IP6 2001:db8::1\r\nt=0 0\r\n"))
        #expect(text.contains("a=fmtp:111 useinbandfec=1;stereo=0\r\n"))
        #expect(text.contains("a=rtcp:5005 IN IP6 2001:db8::5\r\n"))
        #expect(text.contains("a=fingerprint:sha-256 AB:01:FF\r\n"))
        #expect(
            text.contains(
                "a=crypto:7 AES_CM_128_HMAC_SHA1_32 inline:CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJ|2^31|5:2 UNENCRYPTED_SRTCP\r\n"
            ))
        let again = try SessionDescription(parsing: text)
        #expect(again == session)
        #expect(try again.media[0].rtcp == RTCPAttribute(port: 5005, connection: Connection(address: "2001:db8::5")))
        #expect(try again.media[0].setup == .actpass)
        #expect(try again.media[0].cryptos.first?.keyParameters.first?.mki?.length == 2)
    }
}
