import SIPMessage
import Testing

/// The zero-copy accessors (`SIPHost.bytes`, `Via.branchBytes`, `SIPURI.escapedUserBytes`, `NameAddress.tagBytes`,
/// `callIDBytes`) must read exactly the bytes their `String` counterparts decode, for parsed values and for values
/// built through the API, and fail where those fail.
@Suite("Byte accessors")
struct ByteAccessorTests {
    static func message(_ bytes: [UInt8]) -> Message? { try? Message(parsing: bytes) }

    static func bytes(_ text: String?) -> [UInt8]? { text.map { Array($0.utf8) } }

    static func slice(_ bytes: SIPBytes?) -> [UInt8]? { bytes.map { Array($0) } }

    /// Every byte accessor against its string accessor, on one message.
    static func expectSameReads(_ message: Message, _ name: String) throws {
        let fields = message.headerFields
        if let via = try fields.topVia {
            #expect(Array(via.host.bytes) == Array(via.host.text.utf8), "\(name): Via host")
            #expect(slice(via.branchBytes) == bytes(via.branch), "\(name): branch")
        }
        for address in [try fields.from, try fields.to].compactMap({ $0 }) {
            #expect(slice(address.tagBytes) == bytes(address.tag), "\(name): tag")
            if case .sip(let uri) = address.uri {
                #expect(slice(uri.escapedUserBytes) == bytes(uri.escapedUser), "\(name): user")
                #expect(Array(uri.host.bytes) == Array(uri.host.text.utf8), "\(name): host")
            }
        }
        #expect(slice(try fields.callIDBytes) == bytes(try fields.callID), "\(name): Call-ID")
        if case .address(let contact)? = try fields.firstContact, case .sip(let uri) = contact.uri {
            #expect(Array(uri.host.bytes) == Array(uri.host.text.utf8), "\(name): Contact host")
        }
    }

    @Test func benchmarkCorpus() throws {
        let names = TestData.files(in: "bench", suffix: ".sip")
        #expect(names.count == 10)
        for name in names {
            let message = try #require(Self.message(TestData.bench(name)), "\(name) parses")
            try Self.expectSameReads(message, name)
        }
    }

    @Test func tortureCorpus() throws {
        var read = 0
        for name in TestData.files(in: "rfc4475", suffix: ".dat") {
            guard let message = Self.message(TestData.bytes("rfc4475/\(name)")) else { continue }
            // A header the string accessor rejects must be rejected by the byte accessor too.
            do {
                try Self.expectSameReads(message, name)
                read += 1
            } catch {
                #expect(throws: MessageError.self, "\(name)") {
                    _ = try message.headerFields.callIDBytes
                    _ = try message.headerFields.topVia
                    _ = try message.headerFields.from
                    _ = try message.headerFields.to
                    _ = try message.headerFields.firstContact
                }
            }
        }
        #expect(read >= 25)
    }

    @Test func partsAsWrittenWithoutStrings() throws {
        let request = try SIPRequest(
            parsing: Array(
                ("INVITE sip:bob@example.org SIP/2.0\r\n"
                    + "v: SIP/2.0/TCP [2001:db8::1]:5061;rport;BRANCH=z9hG4bK-%41x\r\n"
                    + "f: <sip:al%41ce@Example.COM>;tag=a-b.c\r\n" + "t: sip:bob@example.org\r\n"
                    + "i: x1@[2001:db8::1]\r\n" + "CSeq: 1 INVITE\r\n" + "l: 0\r\n\r\n").utf8))
        let via = try #require(try request.topVia)
        #expect(Array(via.host.bytes) == Array("2001:db8::1".utf8))
        #expect(Self.slice(via.branchBytes) == Array("z9hG4bK-%41x".utf8))
        let from = try #require(try request.from)
        #expect(Self.slice(from.tagBytes) == Array("a-b.c".utf8))
        guard case .sip(let uri) = from.uri else {
            Issue.record("From is not a SIP URI")
            return
        }
        // Escapes stay as written, as in `escapedUser`.
        #expect(Self.slice(uri.escapedUserBytes) == Array("al%41ce".utf8))
        #expect(Array(uri.host.bytes) == Array("Example.COM".utf8))
        #expect(try request.to?.tagBytes == nil)
        #expect(Self.slice(try request.callIDBytes) == Array("x1@[2001:db8::1]".utf8))
    }

    @Test func absentParts() throws {
        #expect(try Via("SIP/2.0/UDP h").branchBytes == nil)
        #expect(try NameAddress("<sip:example.com>").tagBytes == nil)
        // A valueless tag reads as no tag, as `tag` does.
        #expect(try NameAddress("<sip:a@example.com>;tag").tagBytes == nil)
        #expect(try SIPURI("sip:example.com").escapedUserBytes == nil)
        let noCallID = try SIPRequest(
            parsing: Array("OPTIONS sip:b@h SIP/2.0\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(try noCallID.callIDBytes == nil)
    }

    @Test func valuesBuiltThroughTheAPI() throws {
        let via = Via(transport: "UDP", host: try #require(SIPHost("192.0.2.1")), port: 5060, branch: "z9hG4bKbuilt")
        #expect(Self.slice(via.branchBytes) == Array("z9hG4bKbuilt".utf8))
        #expect(Array(via.host.bytes) == Array("192.0.2.1".utf8))
        var edited = try Via("SIP/2.0/UDP h;branch=z9hG4bKold")
        edited.branch = "z9hG4bKnew"
        #expect(Self.slice(edited.branchBytes) == Array("z9hG4bKnew".utf8))

        let uri = SIPURI(user: "carol", host: try #require(SIPHost("example.net")))
        let address = NameAddress(uri: uri, parameters: [Parameter("tag", "t1")])
        #expect(Self.slice(address.tagBytes) == Array("t1".utf8))
        #expect(Self.slice(uri.escapedUserBytes) == Array("carol".utf8))
        var retagged = address
        retagged.tag = "t2"
        #expect(Self.slice(retagged.tagBytes) == Array("t2".utf8))
        let ipv6 = try #require(SIPHost("[2001:db8::2]"))
        #expect(Array(ipv6.bytes) == Array("2001:db8::2".utf8))
    }

    @Test func viewsAreZeroBasedAndCompareByContent() throws {
        let request = try SIPRequest(
            parsing: Array(
                ("OPTIONS sip:b@h SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bKabc\r\nCall-ID: z9hG4bKabc\r\n"
                    + "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").utf8))
        let branch = try #require(try request.topVia?.branchBytes)
        // Wherever the value lies in the message, its indices start at 0.
        #expect(branch.startIndex == 0)
        #expect(branch.count == 10)
        #expect(branch[0] == UInt8(ascii: "z"))
        #expect(branch[9] == UInt8(ascii: "c"))
        #expect(branch.first == UInt8(ascii: "z"))
        #expect(branch == "z9hG4bKabc")
        #expect("z9hG4bKabc" == branch)
        #expect(!(branch == "z9hG4bKab"))
        #expect(!(branch == "z9hG4bKabd"))
        #expect(branch.hasPrefix(Via.magicCookie))
        #expect(!branch.hasPrefix("z9hG4bKabcd"))
        #expect(branch.string == "z9hG4bKabc")
        #expect(branch.description == "z9hG4bKabc")
        // The same bytes elsewhere in the message, and bytes of their own, are equal and hash alike.
        let callID = try #require(try request.callIDBytes)
        #expect(callID == branch)
        #expect(SIPBytes(Array("z9hG4bKabc".utf8)) == branch)
        #expect(Set([branch, callID, SIPBytes("z9hG4bKabc".utf8)]).count == 1)
        #expect(Set([branch, SIPBytes("other".utf8)]).count == 2)
        #expect(branch.withContiguousStorageIfAvailable { Array($0) } == Array("z9hG4bKabc".utf8))
        #expect(SIPBytes([]).isEmpty)
        #expect(SIPBytes([]) == "")
    }

    @Test(arguments: ["", "a b", "@x", "x@", "a;b", "a@b@c"])
    func badCallIDs(_ value: String) throws {
        let request = try SIPRequest(
            parsing: Array(
                ("OPTIONS sip:b@h SIP/2.0\r\nCall-ID: \(value)\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").utf8))
        #expect(throws: MessageError.self) { try request.callID }
        #expect(throws: MessageError.self) { try request.callIDBytes }
    }
}
