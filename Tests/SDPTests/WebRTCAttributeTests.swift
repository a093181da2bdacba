import SDP
import Testing

/// Parses `value`, checks it writes back as written, and parses that again to the same value.
func roundTrips<T: SDPAttributeValue>(_ type: T.Type, _ value: String, as written: String? = nil) throws -> T {
    let parsed = try T(parsingAttributeValue: value)
    #expect(parsed.attributeValue == (written ?? value))
    #expect(try T(parsingAttributeValue: parsed.attributeValue) == parsed)
    #expect(Attribute(parsed).description == "a=\(T.attributeName):\(parsed.attributeValue)")
    return parsed
}

/// Checks `value` is refused as a malformed attribute naming the line (long lines are cut in errors).
func refuses<T: SDPAttributeValue>(_ type: T.Type, _ value: String) {
    #expect {
        try T(parsingAttributeValue: value)
    } throws: { error in
        let error = error as? SDPError
        let line = "a=\(T.attributeName):\(value)"
        return error?.code == .malformedAttribute && error.map { line.hasPrefix($0.line ?? "-") } == true
    }
}

@Suite("WebRTC SDP attributes")
struct WebRTCAttributeTests {
    @Test func setup() throws {
        #expect(try roundTrips(SetupRole.self, "actpass") == .actpass)
        #expect(try roundTrips(SetupRole.self, "PASSIVE", as: "passive") == .passive)
        #expect(SetupRole.actpass.answer == .active)
        #expect(SetupRole.active.answer == .passive)
        #expect(SetupRole.passive.answer == .active)
        #expect(SetupRole.holdconn.answer == nil)
        for bad in ["", "act", "actpass extra"] { refuses(SetupRole.self, bad) }
    }

    @Test func tlsID() throws {
        let value = "abcdefghij0123456789+/-_"
        #expect(try roundTrips(TLSID.self, value).value == value)
        var generator = SystemRandomNumberGenerator()
        let fresh = TLSID.random(using: &generator)
        #expect(try TLSID(parsingAttributeValue: fresh.value) == fresh)
        #expect(fresh.value.count == 32)
        for bad in ["short", String(repeating: "a", count: 256), "abcdefghij0123456789 x", "abcdefghij0123456789!"] {
            refuses(TLSID.self, bad)
        }
    }

    @Test func mid() throws {
        #expect(try roundTrips(MediaID.self, "0").value == "0")
        #expect(try roundTrips(MediaID.self, "audio").value == "audio")
        for bad in ["", "a b", "a\"b"] { refuses(MediaID.self, bad) }
    }

    @Test func group() throws {
        let bundle = try roundTrips(GroupAttribute.self, "BUNDLE 0 1")
        #expect(bundle.semantics.matches(.bundle))
        #expect(bundle.identificationTags == ["0", "1"])
        #expect(try roundTrips(GroupAttribute.self, "bundle audio").semantics.matches(.bundle))
        #expect(try roundTrips(GroupAttribute.self, "BUNDLE").identificationTags.isEmpty)
        #expect(try roundTrips(GroupAttribute.self, "LS 1 2").semantics == .lipSynchronization)
        refuses(GroupAttribute.self, "")
        refuses(GroupAttribute.self, "BUNDLE a\"b")
        refuses(GroupAttribute.self, "BUNDLE " + (0..<65).map(String.init).joined(separator: " "))
    }

    @Test func rtcpReducedSize() throws {
        let media = try sdp(Malformed.head + "m=audio 4000 RTP/SAVPF 111\na=rtcp-rsize\n").media[0]
        #expect(media.allowsReducedSizeRTCP)
        #expect(Attribute.rtcpReducedSize.description == "a=rtcp-rsize")
        let plain = try sdp(Malformed.head + "m=audio 4000 RTP/AVP 0\n").media[0]
        #expect(!plain.allowsReducedSizeRTCP)
    }

    @Test func extmap() throws {
        let mid = try roundTrips(ExtensionMap.self, "3 urn:ietf:params:rtp-hdrext:sdes:mid")
        #expect(mid.identifier == 3 && mid.uri == ExtensionMap.midURI && mid.direction == nil)
        let level = try roundTrips(ExtensionMap.self, "1/sendrecv urn:ietf:params:rtp-hdrext:ssrc-audio-level vad=on")
        #expect(
            level.direction == .sendrecv && level.extensionAttributes == "vad=on"
                && level.uri == ExtensionMap.audioLevelURI)
        #expect(try roundTrips(ExtensionMap.self, "200/recvonly http://example.com/ext a b").identifier == 200)
        #expect(try roundTrips(ExtensionMap.self, "4096 urn:x:y").identifier == 4096)
        for bad in ["", "3", "0 urn:x:y", "256 urn:x:y", "15000 urn:x:y", "x urn:x:y", "3/sideways urn:x:y", "3 nouri"]
        {
            refuses(ExtensionMap.self, bad)
        }
    }

    @Test func rtcpFeedback() throws {
        let nack = try roundTrips(RTCPFeedback.self, "96 nack")
        #expect(nack.payloadType == 96 && nack.type == "nack" && nack.parameter == nil)
        #expect(try roundTrips(RTCPFeedback.self, "96 nack pli").parameter == "pli")
        #expect(try roundTrips(RTCPFeedback.self, "* ccm fir").payloadType == nil)
        #expect(try roundTrips(RTCPFeedback.self, "111 transport-cc").type == "transport-cc")
        #expect(try roundTrips(RTCPFeedback.self, "* trr-int 100").parameter == "100")
        for bad in ["", "96", "128 nack", "x nack", "96 na\"ck", "* trr-int", "* trr-int soon"] {
            refuses(RTCPFeedback.self, bad)
        }
    }

    @Test func msid() throws {
        let both = try roundTrips(MediaStreamID.self, "stream1 track-a")
        #expect(both.streamID == "stream1" && both.trackID == "track-a")
        #expect(try roundTrips(MediaStreamID.self, "-").trackID == nil)
        for bad in ["", "a b c", String(repeating: "s", count: 65), "a\"b"] { refuses(MediaStreamID.self, bad) }
    }

    @Test func ssrc() throws {
        let cname = try roundTrips(SSRCAttribute.self, "3735928559 cname:user@example.com")
        #expect(cname.ssrc == 0xDEAD_BEEF && cname.attribute == "cname" && cname.value == "user@example.com")
        let msid = try roundTrips(SSRCAttribute.self, "1 msid:stream track")
        #expect(msid.value == "stream track")
        #expect(try roundTrips(SSRCAttribute.self, "7 x-property").value == nil)
        for bad in ["", "1", "4294967296 cname:x", "x cname:y", "1 :y", "1 a\"b:c"] { refuses(SSRCAttribute.self, bad) }
    }

    /// A browser's audio section, typed attribute by attribute.
    @Test func aBrowserOfferReadsThroughTheTypedViews() throws {
        let text =
            Malformed.head + "a=group:BUNDLE 0\n" + "m=audio 9 UDP/TLS/RTP/SAVPF 111\n" + "a=mid:0\n"
            + "a=setup:actpass\n" + "a=tls-id:0123456789abcdefghijKLMNOP\n"
            + "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\n"
            + "a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid\n" + "a=rtcp-fb:111 transport-cc\n"
            + "a=msid:- {7c9a}\n" + "a=rtcp-rsize\n" + "a=ssrc:1001 cname:abc\n"
        let description = try sdp(text)
        let media = description.media[0]
        #expect(try description.attribute(named: "group")?.typedValue(GroupAttribute.self)?.identificationTags == ["0"])
        #expect(try media.attribute(named: "mid")?.typedValue(MediaID.self)?.value == "0")
        #expect(try media.attribute(named: "setup")?.typedValue(SetupRole.self) == .actpass)
        #expect(try media.attribute(named: "tls-id")?.typedValue(TLSID.self) != nil)
        #expect(
            try media.attributes(named: "extmap").compactMap { try $0.typedValue(ExtensionMap.self)?.identifier } == [
                1, 3,
            ])
        #expect(try media.attribute(named: "rtcp-fb")?.typedValue(RTCPFeedback.self)?.type == "transport-cc")
        #expect(try media.attribute(named: "msid")?.typedValue(MediaStreamID.self)?.trackID == "{7c9a}")
        #expect(try media.attribute(named: "ssrc")?.typedValue(SSRCAttribute.self)?.ssrc == 1001)
        #expect(media.allowsReducedSizeRTCP)
    }
}
