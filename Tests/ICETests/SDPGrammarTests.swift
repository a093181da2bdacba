import ICE
import STUN
import Testing

/// The ICE attributes of RFC 8839 as strings: parse, print, round-trip, and refuse what is malformed.
@Suite("ICE SDP grammar")
struct SDPGrammarTests {
    @Test(
        "candidate values round-trip",
        arguments: [
            // RFC 8839 §5.1 and the example of RFC 8839 §8 with concrete addresses.
            "1 1 UDP 2130706431 203.0.113.141 8998 typ host",
            "2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 203.0.113.141 rport 8998",
            "3 1 UDP 16777215 198.51.100.10 3478 typ relay raddr 192.0.2.3 rport 45665",
            "4 2 UDP 1862270974 2001:db8::1 50000 typ prflx raddr 2001:db8::9 rport 4000",
            // What browsers send: generation and unknown extensions, kept in order.
            "842163049 1 UDP 1677729535 192.168.1.2 61734 typ srflx raddr 10.0.0.2 rport 54321 generation 0 "
                + "ufrag EsAw network-id 1 network-cost 10",
            "a+/9 1 TCP 1518280447 192.0.2.7 9 typ host tcptype active",
            "9 1 UDP 100 ::ffff:192.0.2.1 1 typ host",
            "x 256 UDP 0 0.0.0.0 0 typ newtype",
        ])
    func roundTrip(_ value: String) throws {
        let candidate = try ICECandidate(sdpValue: value)
        #expect(candidate.sdpValue == value || value.contains("::ffff:"))
        #expect(try ICECandidate(sdpValue: candidate.sdpValue) == candidate)
        #expect(try ICECandidate(sdpValue: "a=candidate:" + value) == candidate)
        #expect(candidate.description == "candidate:" + candidate.sdpValue)
    }

    @Test("candidate fields are read as typed values")
    func fields() throws {
        let candidate = try ICECandidate(
            sdpValue: "candidate:2 1 udp 1694498815 192.0.2.3 45664 typ SRFLX raddr 203.0.113.141 rport 8998 "
                + "generation 3 network-id 2")
        #expect(candidate.foundation == "2")
        #expect(candidate.component == 1)
        #expect(candidate.transport == .udp)
        #expect(candidate.priority == 1_694_498_815)
        #expect(candidate.address == STUNTransportAddress(address: .v4(0xC000_0203), port: 45664))
        #expect(candidate.type == .serverReflexive)
        #expect(candidate.relatedAddress == STUNTransportAddress(address: .v4(0xCB00_718D), port: 8998))
        #expect(candidate.generation == 3)
        #expect(candidate.extensions == [ICECandidateExtension(name: "network-id", value: "2")])
        #expect(candidate.base == candidate.relatedAddress)
    }

    @Test("IPv6 forms parse and print in RFC 5952 form")
    func ipv6() throws {
        let a = try ICECandidate(sdpValue: "1 1 UDP 1 2001:0DB8:0:0:0:0:0:0001 5 typ host")
        #expect(a.address.address == .v6(high: 0x2001_0DB8_0000_0000, low: 1))
        #expect(a.sdpValue == "1 1 UDP 1 2001:db8::1 5 typ host")
        let b = try ICECandidate(sdpValue: "1 1 UDP 1 :: 5 typ host")
        #expect(b.address.address == .v6(high: 0, low: 0))
        let c = try ICECandidate(sdpValue: "1 1 UDP 1 fe80::1:2:3:4:5:6 5 typ host")
        #expect(c.address.address == .v6(high: 0xFE80_0000_0001_0002, low: 0x0003_0004_0005_0006))
    }

    @Test(
        "malformed candidates throw the error that names the fault",
        arguments: [
            ("1 1 UDP 2130706431 203.0.113.141 8998 typ", ICESDPError.Code.missingField),
            ("1 1 UDP 2130706431 203.0.113.141 8998 host x", .badType),
            ("1 0 UDP 1 192.0.2.1 1 typ host", .badComponent),
            ("1 257 UDP 1 192.0.2.1 1 typ host", .badComponent),
            ("1 1 UDP 4294967296 192.0.2.1 1 typ host", .badPriority),
            ("1 1 UDP -1 192.0.2.1 1 typ host", .badPriority),
            ("1 1 UDP 1 192.0.2.256 1 typ host", .badAddress),
            ("1 1 UDP 1 host.example.com 1 typ host", .badAddress),
            ("1 1 UDP 1 a1b2.local 1 typ host", .badAddress),
            ("1 1 UDP 1 2001:db8::1::2 1 typ host", .badAddress),
            ("1 1 UDP 1 1:2:3:4:5:6:7:8:9 1 typ host", .badAddress),
            ("1 1 UDP 1 192.0.2.1 65536 typ host", .badPort),
            ("1 1 U/DP 1 192.0.2.1 1 typ host", .badTransport),
            ("f_o 1 UDP 1 192.0.2.1 1 typ host", .badFoundation),
            ("123456789012345678901234567890123 1 UDP 1 192.0.2.1 1 typ host", .badFoundation),
            ("1 1 UDP 1 192.0.2.1 1 typ srflx raddr", .badExtension),
            ("1 1 UDP 1 192.0.2.1 1 typ srflx raddr 192.0.2.2", .badRelatedAddress),
            ("1 1 UDP 1 192.0.2.1 1 typ srflx raddr 192.0.2.2 x y", .badRelatedAddress),
            ("1 1 UDP 1 192.0.2.1 1 typ srflx rport 5 rport 6", .badRelatedAddress),
            ("1 1 UDP 1 192.0.2.1 1 typ srflx raddr nowhere rport 6", .badRelatedAddress),
            ("1 1 UDP 1 192.0.2.1 1 typ host generation x", .badGeneration),
        ])
    func malformed(_ value: String, _ code: ICESDPError.Code) {
        #expect {
            _ = try ICECandidate(sdpValue: value)
        } throws: { error in
            (error as? ICESDPError)?.code == code
        }
    }

    @Test("lengths and counts are bounded")
    func bounds() {
        let long = "1 1 UDP 1 192.0.2.1 1 typ host" + String(repeating: " a b", count: 300)
        #expect(throws: ICESDPError.self) { _ = try ICECandidate(sdpValue: long) }
        let many = "1 1 UDP 1 192.0.2.1 1 typ host" + String(repeating: " a b", count: 17)
        #expect {
            _ = try ICECandidate(sdpValue: many)
        } throws: { ($0 as? ICESDPError)?.code == .tooMany }
        var attributes = ICESDPAttributes()
        #expect(throws: ICESDPError.self) {
            try attributes.parse(name: "ice-options", value: Array(repeating: "x", count: 17).joined(separator: " "))
        }
        #expect(throws: ICESDPError.self) {
            try attributes.parse(
                name: "remote-candidates", value: Array(repeating: "1 192.0.2.1 5", count: 17).joined(separator: " "))
        }
    }

    @Test("ufrag and pwd: 4 and 22 ice-chars at least, 256 at most")
    func credentials() throws {
        #expect(throws: Never.self) { _ = try ICECredentials(ufrag: "8hhY", password: "asd88fgpdd777uzjYhagZg") }
        #expect(throws: ICESDPError.self) { _ = try ICECredentials(ufrag: "8hh", password: "asd88fgpdd777uzjYhagZg") }
        #expect(throws: ICESDPError.self) { _ = try ICECredentials(ufrag: "8hhY", password: "asd88fgpdd777uzjYhagZ") }
        #expect(throws: ICESDPError.self) { _ = try ICECredentials(ufrag: "8h-Y", password: "asd88fgpdd777uzjYhagZg") }
        let long = String(repeating: "a", count: 257)
        #expect(throws: ICESDPError.self) { _ = try ICECredentials(ufrag: long, password: "asd88fgpdd777uzjYhagZg") }
        #expect(throws: Never.self) {
            _ = try ICECredentials(ufrag: String(long.dropLast()), password: long.dropLast() + "")
        }
        var generator = SplitMix64(seed: 7)
        let random = ICECredentials.random(using: &generator)
        #expect(random.ufrag.utf8.count == 8 && random.password.utf8.count == 24)
        #expect(try ICECredentials(ufrag: random.ufrag, password: random.password) == random)
        #expect(ICECredentials.random(using: &generator) != random)
        // The password never shows.
        #expect(!random.description.contains(random.password))
        var dumped = ""
        dump(random, to: &dumped)
        #expect(!dumped.contains(random.password))
    }

    @Test("a section's attributes: RFC 8839 §8 example")
    func section() throws {
        let lines = [
            "ice-lite", "ice-ufrag:8hhY", "ice-pwd:asd88fgpdd777uzjYhagZg", "ice-options:ice2 trickle",
            "candidate:1 1 UDP 2130706431 203.0.113.141 8998 typ host",
            "candidate:2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 203.0.113.141 rport 8998",
            "end-of-candidates", "remote-candidates:1 192.0.2.3 45664 2 2001:db8::1 45665",
        ]
        var attributes = ICESDPAttributes()
        for line in lines {
            let (name, value) = Self.split(line)
            #expect(try attributes.parse(name: name, value: value))
        }
        #expect(try attributes.parse(name: "rtpmap", value: "0 PCMU/8000") == false)
        #expect(attributes.isLite)
        #expect(attributes.credentials?.ufrag == "8hhY")
        #expect(attributes.options == [.ice2, .trickle])
        #expect(attributes.candidates.count == 2)
        #expect(attributes.isEndOfCandidates)
        #expect(attributes.remoteCandidates?.count == 2)
        #expect(attributes.remoteCandidates?[1].address.address == .v6(high: 0x2001_0db8_0000_0000, low: 1))
        #expect(attributes.attributeLines == lines)
        #expect(!attributes.description.contains("asd88fgpdd777uzjYhagZg"))
        var dumped = ""
        dump(attributes, to: &dumped)
        #expect(!dumped.contains("asd88fgpdd777uzjYhagZg"))
    }

    @Test(
        "malformed section attributes",
        arguments: [
            ("ice-ufrag", "abc", ICESDPError.Code.badUfrag),
            ("ice-ufrag", nil, .badUfrag),
            ("ice-pwd", "short", .badPassword),
            ("ice-options", "", .badOption),
            ("ice-options", "ice2 tri-ckle", .badOption),
            ("ice-lite", "yes", .unexpectedValue),
            ("end-of-candidates", "1", .unexpectedValue),
            ("remote-candidates", "1 192.0.2.1", .missingField),
            ("remote-candidates", "0 192.0.2.1 5", .badComponent),
            ("remote-candidates", "1 192.0.2.1 x", .badPort),
            ("remote-candidates", "1 example.com 5", .badAddress),
            ("candidate", nil, .missingField),
        ] as [(String, String?, ICESDPError.Code)])
    func malformedSection(_ name: String, _ value: String?, _ code: ICESDPError.Code) {
        var attributes = ICESDPAttributes()
        #expect {
            try attributes.parse(name: name, value: value)
        } throws: { ($0 as? ICESDPError)?.code == code }
    }

    @Test("remote-candidates value and options")
    func remoteCandidatesValue() {
        let value = ICESDPAttributes.remoteCandidatesValue([
            ICERemoteCandidate(component: 1, address: STUNTransportAddress(address: .v4(0xC000_0203), port: 45664))
        ])
        #expect(value == "1 192.0.2.3 45664")
        #expect(ICEOption(name: "ice2") == .ice2)
        #expect(ICEOption(name: "") == nil)
    }

    static func split(_ line: String) -> (String, String?) {
        guard let colon = line.firstIndex(of: ":") else { return (line, nil) }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
}
