import SDP
import Testing

@Suite("Typed attributes")
struct AttributeTests {
    /// A media section holding `lines` (each without the `a=`).
    static func media(_ lines: String...) throws -> MediaDescription {
        let attributes = lines.map { "a=" + $0 + "\n" }.joined()
        return try sdp(Malformed.head + "m=audio 4000 RTP/AVP 0 8 96 101\n" + attributes).media[0]
    }

    @Test func rtpMaps() throws {
        let media = try Self.media(
            "rtpmap:96 opus/48000/2", "rtpmap:0 PCMU/8000", "rtpmap:101 telephone-event/8000 ")
        let maps = try media.rtpMaps
        #expect(maps.count == 3)
        #expect(maps[0] == RTPMap(payloadType: 96, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(maps[1].channels == nil)
        #expect(maps[1].channelCount == 1)
        #expect(maps[2].encodingName == "telephone-event")
        #expect(try media.rtpMap(for: 0)?.encodingName == "PCMU")
        #expect(try media.rtpMap(for: 8) == nil)
        #expect(RTPMap.staticAudio(8) == RTPMap(payloadType: 8, encodingName: "PCMA", clockRate: 8000))
        #expect(RTPMap.staticAudio(9)?.encodingName == "G722")
        #expect(RTPMap.staticAudio(96) == nil)
        #expect(maps[0].attributeValue == "96 opus/48000/2")
    }

    @Test(
        "malformed rtpmaps are refused",
        arguments: [
            "abc PCMU/8000", "0 PCMU", "0 PCMU/", "128 x/8000", "0 PCMU/8000/0", "0 PCMU/0", "0 PCMU/8000/2/1",
            "0  ", "0 PCMU/8000 extra", "",
        ])
    func badRTPMap(_ value: String) throws {
        let media = try Self.media("rtpmap:" + value)
        let error = try #require(throws: SDPError.self) { try media.rtpMaps }
        #expect(error.code == .malformedAttribute)
        #expect(error.status == 400)
        #expect(error.line == "a=rtpmap:" + value)
        #expect(error.detail.hasPrefix("rtpmap: "))
    }

    @Test func formatParameters() throws {
        let media = try Self.media(
            "fmtp:96 useinbandfec=1; maxaveragebitrate=30000;stereo=0;;",
            "fmtp:101 0-16",
            "fmtp:8")
        let opus = try #require(try media.formatParameters(for: "96"))
        #expect(opus.parameterString == "useinbandfec=1; maxaveragebitrate=30000;stereo=0;;")
        #expect(
            opus.parameters == [
                .init("useinbandfec", "1"), .init("maxaveragebitrate", "30000"), .init("stereo", "0"),
            ])
        #expect(opus.value(of: "MaxAverageBitrate") == "30000")
        #expect(opus.value(of: "sprop-stereo") == nil)
        let events = try #require(try media.formatParameters(for: "101"))
        #expect(events.parameters == [.init("0-16")])
        #expect(events.value(of: "0-16") == nil)
        #expect(try media.formatParameters(for: "8")?.parameterString == "")
        let built = FormatParameters(format: "96", parameters: [.init("a", "1"), .init("b")])
        #expect(Attribute(built).description == "a=fmtp:96 a=1;b")
        let error = try #require(throws: SDPError.self) { try Self.media("fmtp: 1").formatParameters }
        #expect(error.code == .malformedAttribute)
    }

    @Test func packetTimes() throws {
        let media = try Self.media("ptime:20", "maxptime:150")
        #expect(try media.packetTime == 20)
        #expect(try media.maximumPacketTime == 150)
        #expect(try Self.media("ptime:0.5").packetTime == 0)
        #expect(try Self.media("ptime:30.0").packetTime == 30)
        #expect(try Self.media().packetTime == nil)
        for bad in ["ptime:", "ptime:x", "ptime:20ms", "ptime:-20"] {
            let error = try #require(throws: SDPError.self) { try Self.media(bad).packetTime }
            #expect(error.code == .malformedAttribute, "\(bad)")
        }
    }

    @Test(arguments: MediaDirection.allCases)
    func directions(_ direction: MediaDirection) throws {
        let media = try Self.media(direction.rawValue)
        #expect(media.direction == direction)
        #expect(direction.reversed.reversed == direction)
        #expect(direction.reversed.sends == direction.receives)
        #expect(MediaDirection(sends: direction.sends, receives: direction.receives) == direction)
        var edited = media
        edited.setDirection(.inactive)
        #expect(edited.direction == .inactive)
        #expect(edited.attributes.filter { MediaDirection(attributeName: $0.name) != nil }.count == 1)
    }

    @Test func directionAlgebra() {
        #expect(MediaDirection.sendonly.reversed == .recvonly)
        #expect(MediaDirection.inactive.reversed == .inactive)
        #expect(MediaDirection.sendrecv.intersection(.sendonly) == .sendonly)
        #expect(MediaDirection.recvonly.intersection(.sendonly) == .inactive)
        #expect(MediaDirection(attributeName: "SENDONLY") == .sendonly)
        #expect(MediaDirection(attributeName: "rtcp-mux") == nil)
    }

    @Test func rtcpAttribute() throws {
        #expect(try Self.media("rtcp:53020").rtcp == RTCPAttribute(port: 53020))
        let withAddress = try #require(try Self.media("rtcp:53020 IN IP4 126.16.64.4").rtcp)
        #expect(withAddress.port == 53020)
        #expect(withAddress.connection?.address == "126.16.64.4")
        #expect(withAddress.attributeValue == "53020 IN IP4 126.16.64.4")
        let badPort = try #require(throws: SDPError.self) { try Self.media("rtcp:70000").rtcp }
        #expect(badPort.code == .badPort)
        let badForm = try #require(throws: SDPError.self) { try Self.media("rtcp:5 IN IP4").rtcp }
        #expect(badForm.code == .malformedAttribute)
    }

    @Test func rtcpMux() throws {
        #expect(try Self.media("rtcp-mux").isRTCPMuxed)
        #expect(try !Self.media("rtcp-mux-only").isRTCPMuxed)
        #expect(try !Self.media().isRTCPMuxed)
    }

    @Test func ssrc() throws {
        let media = try Self.media("ssrc:3735928559 cname:user@example.com", "ssrc:1 label", "ssrc:2 msid:a b")
        let ssrcs = try media.ssrcs
        #expect(ssrcs[0] == SSRCAttribute(ssrc: 3_735_928_559, attribute: "cname", value: "user@example.com"))
        #expect(ssrcs[1].value == nil)
        #expect(ssrcs[2].value == "a b")
        #expect(ssrcs.map(\.attributeValue) == ["3735928559 cname:user@example.com", "1 label", "2 msid:a b"])
        for bad in ["ssrc:4294967296 cname:x", "ssrc:x cname:y", "ssrc:1", "ssrc:1 c@me"] {
            let error = try #require(throws: SDPError.self) { try Self.media(bad).ssrcs }
            #expect(error.code == .malformedAttribute, "\(bad)")
        }
    }

    @Test func midAndSetup() throws {
        #expect(try Self.media("mid:audio0").mid == "audio0")
        #expect(try Self.media().mid == nil)
        #expect(throws: SDPError.self) { try Self.media("mid:a b").mid }
        for role in SetupRole.allCases {
            #expect(try Self.media("setup:" + role.rawValue).setup == role)
        }
        #expect(try Self.media("setup:ActPass").setup == .actpass)
        let error = try #require(throws: SDPError.self) { try Self.media("setup:both").setup }
        #expect(error.code == .malformedAttribute)
    }

    @Test func fingerprints() throws {
        let hex = "4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB"
        let media = try Self.media("fingerprint:SHA-1 " + hex, "fingerprint:sha-256 ab:cd")
        let fingerprints = try media.fingerprints
        #expect(fingerprints[0].hashFunction == "SHA-1")
        #expect(fingerprints[0].bytes.count == 20)
        #expect(fingerprints[0].bytes.first == 0x4A)
        #expect(fingerprints[0].attributeValue == "SHA-1 " + hex)
        #expect(fingerprints[1].bytes == [0xAB, 0xCD])
        #expect(fingerprints[1].attributeValue == "sha-256 AB:CD")
        for bad in ["sha-1 4A:A", "sha-1 4AAD", "sha-1 4A::AD", "sha-1 4A:AD:", "sha-1 ZZ", "sha-1", "sha-1 "] {
            let error = try #require(throws: SDPError.self) { try Self.media("fingerprint:" + bad).fingerprints }
            #expect(error.code == .malformedAttribute, "\(bad)")
        }
    }

    @Test func typedValuesMatchNamesIgnoringCase() throws {
        let attribute = Attribute("RTPMAP", "0 PCMU/8000")
        #expect(try attribute.typedValue(RTPMap.self)?.encodingName == "PCMU")
        #expect(try attribute.typedValue(FormatParameters.self) == nil)
        #expect(try Attribute(parsing: "rtcp-mux") == Attribute("rtcp-mux"))
        #expect(try Attribute(parsing: "x:") == Attribute("x", ""))
        #expect(try Attribute(parsing: "x:a:b") == Attribute("x", "a:b"))
    }
}
