import Testing

@testable import SIPMessage

/// The building fast paths (token parameters written in place, a Via's buffer sized up front, the field
/// tables reserved) must write exactly the bytes the general code writes.
@Suite("Building fast paths")
struct BuildFastPathTests {
    static let names = ["branch", "rport", "alias", "received", "x-Odd.name!", "", "bad name", "na;me", "é", "%41"]
    static let values: [String?] = [
        nil, "z9hG4bK776asdhds", "", "5060", "192.0.2.1", "[2001:db8::1]", "a b", "\"quoted\"", "\"open",
        "semi;colon", "comma,here", "é", "back\\slash", "line\r\nbreak", "x=y", "~tilde*'()", "%41",
    ]

    static func generalWrite(_ list: [Parameter]) -> [UInt8] {
        var out: [UInt8] = []
        for p in list { Parameters.writeHeaderParameterInGeneral(p, into: &out) }
        return out
    }

    @Test("One parameter: the fast writer agrees with the general one, or leaves it to it")
    func singleParameters() {
        var fastHits = 0
        for name in Self.names {
            for value in Self.values {
                let p = Parameter(name, value)
                var fast: [UInt8] = []
                if Parameters.writeTokenParameter(p, into: &fast) {
                    fastHits += 1
                    #expect(fast == Self.generalWrite([p]), "\(name)=\(value ?? "nil")")
                } else {
                    #expect(fast.isEmpty, "\(name)=\(value ?? "nil") wrote before falling back")
                }
                var all: [UInt8] = []
                Parameters.writeHeaderParameters([p], into: &all)
                #expect(all == Self.generalWrite([p]), "\(name)=\(value ?? "nil")")
            }
        }
        #expect(fastHits > 20)
    }

    @Test("Parameter lists mixing fast and general parameters")
    func lists() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<500 {
            let list = (0..<next(5)).map { _ in
                Parameter(Self.names[next(Self.names.count)], Self.values[next(Self.values.count)])
            }
            var out: [UInt8] = []
            Parameters.writeHeaderParameters(list, into: &out)
            #expect(out == Self.generalWrite(list))
        }
    }

    /// The Via wire form as the general code spells it.
    static func reference(
        _ transport: String, _ host: SIPHost, _ port: UInt16?, _ parameters: [Parameter]
    ) -> String {
        let t = !transport.isEmpty && transport.utf8.allSatisfy({ $0.isTokenChar }) ? transport : "UDP"
        var out = Array("SIP/2.0/\(t) \(host)".utf8)
        if let port { out += Array(":\(port)".utf8) }
        return String(decoding: out + generalWrite(parameters), as: UTF8.self)
    }

    @Test("Vias built through the API: same bytes as the general spelling, and they read back")
    func vias() throws {
        let hosts = try ["192.0.2.7", "[2001:db8::5]", "example.com", "a-b.example", "[::1]"].map {
            try #require(SIPHost($0))
        }
        let transports = ["UDP", "TCP", "TLS", "WS", "", "U D P", "x~y"]
        let extras: [[Parameter]] = [
            [], [Parameter("rport")], [Parameter("rport"), Parameter("alias")],
            [Parameter("received", "[2001:db8::9]"), Parameter("ttl", "16")], [Parameter("x", "needs quoting")],
            [Parameter("Branch", "old")], [Parameter("bad name", "v"), Parameter("ok", "\"q\"")],
        ]
        for host in hosts {
            for transport in transports {
                for port: UInt16? in [nil, 0, 5060, 65535] {
                    for extra in extras {
                        for branch: String? in [nil, "z9hG4bK-1", "a b"] {
                            let via = Via(
                                transport: transport, host: host, port: port, branch: branch,
                                parameters: Parameters(extra))
                            var expected = Parameters(extra)
                            if let branch { expected["branch"] = branch }
                            let wire = via.wireForm
                            #expect(wire == Self.reference(transport, host, port, expected.elements))
                            #expect(via.host == host)
                            #expect(via.port == port)
                            guard branch != "a b" else { continue }  // a quoted branch does not parse
                            let parsed = try Via(wire)
                            #expect(parsed.branch == via.branch)
                            #expect(parsed.host == via.host)
                            #expect(parsed.transport == via.transport)
                        }
                    }
                }
            }
        }
    }

    static let texts = [
        "", "Alice", "Bob Smith", "quote\"inside", "back\\slash", "line\r\nbreak", "tab\there", "é ü 日本",
        "\u{0}nul", "~!@#$%^&*()", String(repeating: "x", count: 300),
    ]

    @Test("Quoted strings: the copy in one piece agrees with the escaping loop")
    func quoted() {
        for text in Self.texts {
            var expected: [UInt8] = [ASCII.quote]
            for b in text.utf8 where b != ASCII.cr && b != ASCII.lf {
                if b == ASCII.quote || b == ASCII.backslash { expected.append(ASCII.backslash) }
                expected.append(b)
            }
            expected.append(ASCII.quote)
            var out: [UInt8] = [7]
            appendQuoted(text, to: &out)
            #expect(out == [7] + expected, "\(text)")
        }
    }

    @Test("Tokens or their fallback, recorded where they land")
    func tokens() {
        for text in ["SIP", "2.0", "UDP", "", "a b", "é", "x~y", "%", "a/b", String(repeating: "T", count: 40)] {
            var out: [UInt8] = [1, 2]
            let range = out.appendTokenRecording(text, or: "FB")
            let isToken = !text.isEmpty && text.utf8.allSatisfy { $0.isTokenChar }
            #expect(out == [1, 2] + Array((isToken ? text : "FB").utf8), "\(text)")
            #expect(range.range == 2..<out.count)
        }
    }

    @Test("Name-addresses built through the API keep their bytes and read back")
    func nameAddresses() throws {
        let host = try #require(SIPHost("192.0.2.1"))
        let uris: [URI] = [
            .sip(SIPURI(user: "alice", host: host)), .sip(SIPURI(user: "bob", host: host, port: 5070)),
            try URI("tel:+15551234567"), try URI("sips:[2001:db8::1]:5061;transport=tls"),
        ]
        let parameterSets: [Parameters] = [
            [], [Parameter("tag", "1928301774")], [Parameter("expires", "60"), Parameter("x", "a b")],
            [Parameter("bad name", "v"), Parameter("q", "0.5")],
        ]
        for text in Self.texts + [nil] as [String?] {
            for uri in uris {
                for parameters in parameterSets {
                    let address = NameAddress(displayName: text, uri: uri, parameters: parameters)
                    var expected: [UInt8] = []
                    if let text, !text.isEmpty {
                        expected.append(ASCII.quote)
                        for b in text.utf8 where b != ASCII.cr && b != ASCII.lf {
                            if b == ASCII.quote || b == ASCII.backslash { expected.append(ASCII.backslash) }
                            expected.append(b)
                        }
                        expected += [ASCII.quote, ASCII.space]
                    }
                    expected.append(ASCII.lessThan)
                    uri.serialize(into: &expected)
                    expected.append(ASCII.greaterThan)
                    expected += Self.generalWrite(parameters.elements)
                    #expect(address.wireForm == String(decoding: expected, as: UTF8.self))
                    #expect(address.uri == uri)
                    #expect(address.parameters == Parameters(Self.generalWriteParsed(parameters.elements)))
                }
            }
        }
    }

    /// The parameters as they read back from their written form.
    static func generalWriteParsed(_ list: [Parameter]) -> [Parameter] {
        let bytes = generalWrite(list)
        return Parameters(wire: bytes, range: 0..<bytes.count, isURI: false).elements
    }
}
