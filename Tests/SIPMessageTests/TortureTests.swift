import SIPMessage
import Testing

/// RFC 4475 Appendix A, byte-exact: one verdict per message. Where the RFC allows a choice, the case says
/// what Switchboard chose and why.
struct TortureCase: CustomTestStringConvertible, Sendable {
    enum Verdict: Equatable, Sendable {
        case accept
        case reject(Int)
        case drop
    }

    var name: String
    var verdict: Verdict
    /// Why, when the RFC leaves a choice.
    var choice: String = ""

    var testDescription: String { name }
}

let tortureCases: [TortureCase] = [
    // §3.1.1 valid messages: all must be accepted.
    .init(name: "wsinv", verdict: .accept),
    .init(name: "intmeth", verdict: .accept),
    .init(name: "esc01", verdict: .accept),
    .init(name: "escnull", verdict: .accept),
    .init(name: "esc02", verdict: .accept),
    .init(name: "lwsdisp", verdict: .accept, choice: "tolerated as the RFC asks (a known grammar bug)"),
    .init(name: "longreq", verdict: .accept),
    .init(name: "dblreq", verdict: .accept),
    .init(name: "semiuri", verdict: .accept),
    .init(name: "transports", verdict: .accept),
    .init(name: "mpart01", verdict: .accept),
    .init(name: "unreason", verdict: .accept),
    .init(name: "noreason", verdict: .accept),
    // §3.1.2 invalid messages.
    .init(name: "badinv01", verdict: .reject(400)),
    .init(name: "clerr", verdict: .reject(400), choice: "datagram; on a stream the framer waits for more bytes"),
    .init(name: "ncl", verdict: .reject(400)),
    .init(name: "scalar02", verdict: .reject(400)),
    .init(name: "scalarlg", verdict: .drop),
    .init(name: "quotbal", verdict: .reject(400)),
    .init(
        name: "ltgtruri", verdict: .reject(400),
        choice: "rejected: a bracketed Request-URI is never valid and tolerating it hides broken peers"),
    .init(name: "lwsruri", verdict: .reject(400), choice: "rejected: LWS inside the Request-URI is ambiguous"),
    .init(
        name: "lwsstart", verdict: .reject(400),
        choice: "rejected: the request line grammar has single SPs, and a tolerant parse could be forwarded"),
    .init(name: "trws", verdict: .reject(400), choice: "rejected for the same reason as lwsstart"),
    .init(
        name: "escruri", verdict: .reject(400),
        choice: "rejected: headers in a Request-URI have no meaning and must never become real headers"),
    .init(
        name: "baddate", verdict: .accept,
        choice: "tolerated: Date does not matter to a user agent; the typed Date view reports the bad zone"),
    .init(name: "regbadct", verdict: .reject(400), choice: "rejected: a URI with headers must be in <> "),
    .init(name: "badaspec", verdict: .reject(400), choice: "rejected: spaces inside <> are not LWS"),
    .init(
        name: "baddn", verdict: .reject(400),
        choice: "the archived file has no empty line, so its header section never ends; with the line added, "
            + "the unquoted display name is rejected (see the second test)"),
    .init(name: "badvers", verdict: .reject(505)),
    .init(name: "mismatch01", verdict: .reject(400)),
    .init(name: "mismatch02", verdict: .reject(501), choice: "501 rather than 400, as the RFC prefers"),
    .init(name: "bigcode", verdict: .drop),
    // §3.2 transaction layer.
    .init(
        name: "badbranch", verdict: .accept,
        choice: "accepted: the transaction layer falls back to RFC 2543 matching for a bare magic cookie"),
    // §3.3 application layer: accepted, or rejected where the check is purely syntactic.
    .init(name: "insuf", verdict: .reject(400)),
    .init(name: "unkscm", verdict: .reject(416)),
    .init(name: "novelsc", verdict: .reject(416), choice: "416: Switchboard never accepts soap.beep URIs"),
    .init(name: "unksm2", verdict: .accept, choice: "the registrar's 400 is application-layer (not a registrar here)"),
    .init(name: "bext01", verdict: .reject(420)),
    .init(name: "invut", verdict: .reject(415)),
    .init(name: "regaut01", verdict: .accept, choice: "unknown schemes are the authentication layer's business"),
    .init(name: "multi01", verdict: .reject(400)),
    .init(name: "mcl01", verdict: .reject(400)),
    .init(name: "bcast", verdict: .accept, choice: "a response; the transport never sends to a broadcast Via"),
    .init(name: "zeromf", verdict: .accept, choice: "an endpoint processes Max-Forwards 0 normally"),
    .init(name: "cparam01", verdict: .accept),
    .init(name: "cparam02", verdict: .accept),
    .init(name: "regescrt", verdict: .accept),
    .init(name: "sdp01", verdict: .reject(406), choice: "406: the answer must be SDP and Accept excludes it"),
    // §3.4 backward compatibility.
    .init(name: "inv2543", verdict: .accept),
    // Not in the RFC text.
    .init(
        name: "test", verdict: .reject(400),
        choice: "no RFC verdict; its request line has no SIP-Version and a header line has no colon: 400"),
]

func verdict(of bytes: [UInt8]) -> TortureCase.Verdict {
    do {
        let message = try Message(parsing: bytes)
        try message.validate(capabilities: Capabilities())
        return .accept
    } catch {
        if let status = error.status { return .reject(status) }
        return .drop
    }
}

@Suite("RFC 4475 torture messages")
struct TortureTests {
    @Test("all 50 archive messages have a case")
    func everyFileHasACase() {
        let files = TestData.files(in: "rfc4475", suffix: ".dat").map { String($0.dropLast(4)) }
        #expect(files.count == 50)
        #expect(Set(files) == Set(tortureCases.map(\.name)))
    }

    @Test("verdict", arguments: tortureCases)
    func verdictMatches(_ testCase: TortureCase) {
        #expect(verdict(of: TestData.torture(testCase.name)) == testCase.verdict, "\(testCase.choice)")
    }

    @Test func baddnWithItsEmptyLineRejectsTheDisplayName() throws {
        let bytes = TestData.torture("baddn") + Array("\r\n".utf8)
        let message = try Message(parsing: bytes)
        #expect(throws: MessageError.self) { try message.validate() }
        do {
            try message.validate()
        } catch {
            #expect(error.status == 400)
            #expect(error.fieldName == "from")
        }
    }

    @Test func clerrOnAStreamWaitsForTheBody() {
        var framer = StreamFramer()
        framer.append(TestData.torture("clerr"))
        guard case .needMore(let n)? = framer.next() else {
            Issue.record("expected needMore")
            return
        }
        #expect(n > 0)
    }

    @Test("framing errors close a stream", arguments: ["mcl01", "ncl"])
    func framingErrorsCloseAStream(_ name: String) {
        var framer = StreamFramer()
        framer.append(TestData.torture(name))
        guard case .close(let error)? = framer.next() else {
            Issue.record("expected close")
            return
        }
        #expect(error.status == 400)
    }

    @Test func dblreqIgnoresTheTrailingOctets() throws {
        let message = try Message(parsing: TestData.torture("dblreq"))
        guard case .request(let request) = message else { throw Failure("not a request") }
        #expect(request.method == .register)
        #expect(request.bodyBytes.isEmpty)
    }

    @Test func inv2543BodyIsTheRestOfTheDatagram() throws {
        let request = try SIPRequest(parsing: TestData.torture("inv2543"))
        #expect(request.bodyText.hasPrefix("v=0"))
        #expect(try request.topVia?.branch == nil)
        #expect(try request.from?.tag == nil)
        #expect(try request.maxForwards == nil)
    }

    @Test func wsinvReadsThroughFoldsAndOddSpacing() throws {
        let request = try SIPRequest(parsing: TestData.torture("wsinv"))
        #expect(try request.maxForwards == 68)
        #expect(try request.cseq == CSeq(9, .invite))
        #expect(try request.to?.tag == "1918181833n")
        #expect(try request.from?.displayName == #"J Rosenberg \""#)
        #expect(try request.from?.tag == "98asjd8")
        let vias = try request.via
        #expect(vias.count == 3)
        #expect(vias.map(\.transport) == ["UDP", "TCP", "UDP"])
        #expect(vias[1].branch == "z9hG4bK9ikj8")
        #expect(vias[2].branch == "z9hG4bK30239")
        #expect(request.headerFields[.subject] == "")
        let unusual = try #require(SIPField.Name("UnknownHeaderWithUnusualValue"))
        #expect(request.headerFields[unusual] == ";;,,;;,;")
        let newFangled = try #require(SIPField.Name("NewFangledHeader"))
        #expect(
            request.headerFields[newFangled]?.split(separator: " ").joined(separator: " ")
                == "newfangled value continued newfangled value")
        let contact = try #require(try request.contacts.first)
        #expect(contact.nameAddress?.displayName == #"Quoted string """#)
        #expect(contact.q == 0.33)
        #expect(contact.nameAddress?.parameters["newparam"] == "newvalue")
        #expect(contact.nameAddress?.parameters.contains("secondparam") == true)
        #expect(try request.route.first?.uri.sipURI?.isLooseRouter == true)
    }

    @Test func intmethKeepsTheOddCharacters() throws {
        let request = try SIPRequest(parsing: TestData.torture("intmeth"))
        #expect(request.method.rawValue == "!interesting-Method0123456789_*+`.%indeed'~")
        #expect(!request.method.isStandard)
        let uri = try #require(request.uri.sipURI)
        #expect(uri.user == "1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*")
        #expect(uri.password == "&it+has=1,weird!*pas$wo~d_too.(doesn't-it)")
        let to = try #require(try request.to)
        #expect(to.displayName == "BEL:\u{07} NUL:\u{00} DEL:\u{7F}")
        #expect(try request.callID == "intmeth.word%ZK-!.*_+'@word`~)(><:\\/\"][?}{")
        #expect(try request.from?.tag == "_token~1'+`*%!-.")
        #expect(try request.from?.displayName == "token1~` token2'+_ token3*%!.-")
    }

    @Test func escapesAreDecodedOnceAndNotRecursively() throws {
        let request = try SIPRequest(parsing: TestData.torture("esc01"))
        let uri = try #require(request.uri.sipURI)
        #expect(uri.user == "sips:user@example.com")
        #expect(try request.to?.uri.sipURI?.user == "user")
        #expect(try request.from?.uri.sipURI?.user == "I have spaces")
        let contact = try #require(try request.firstContact?.uri?.sipURI)
        #expect(contact.user == "caller")
        #expect(contact.parameters.contains("lr"))
        #expect(contact.parameters["name"] == "v%61lue%25%34%31")
        // One decoding pass: %25%34%31 becomes %41, not A.
        #expect(contact.parameters.decodedValue("name") == "value%41")
    }

    @Test func escapedNullsStayInTheUserPart() throws {
        let request = try SIPRequest(parsing: TestData.torture("escnull"))
        #expect(try request.to?.uri.sipURI?.user == "null-\u{00}-null")
        let users = try request.contacts.compactMap { $0.uri?.sipURI?.user }
        #expect(users == ["\u{00}", "\u{00}\u{00}"])
    }

    @Test func esc02HasTwoContactsAndAnUnknownMethod() throws {
        let request = try SIPRequest(parsing: TestData.torture("esc02"))
        #expect(request.method.rawValue == "RE%47IST%45R")
        #expect(try request.contacts.count == 2)
        #expect(try request.from?.displayName == "%Z%45")
    }

    @Test func cparamParametersLandWhereTheRFCSays() throws {
        let one = try SIPRequest(parsing: TestData.torture("cparam01"))
        let c1 = try #require(try one.firstContact?.nameAddress)
        #expect(c1.parameters.contains("unknownparam"))
        #expect(c1.uri.sipURI?.parameters.contains("unknownparam") == false)
        let two = try SIPRequest(parsing: TestData.torture("cparam02"))
        let c2 = try #require(try two.firstContact?.nameAddress)
        #expect(!c2.parameters.contains("unknownparam"))
        #expect(c2.uri.sipURI?.parameters.contains("unknownparam") == true)
        let three = try SIPRequest(parsing: TestData.torture("regescrt"))
        let c3 = try #require(try three.firstContact?.uri?.sipURI)
        #expect(c3.headers == [Parameter("Route", "%3Csip:sip.example.com%3E")])
    }

    @Test func unknownSchemesInHeadersAreKept() throws {
        let request = try SIPRequest(parsing: TestData.torture("unksm2"))
        #expect(try request.to?.uri == .other(AbsoluteURI(scheme: "isbn", content: "2983792873")))
        #expect(try request.from?.uri.scheme == "http")
        #expect(try request.firstContact?.uri?.scheme == "name")
    }

    @Test func badExtensionNamesTheTags() throws {
        let request = try SIPRequest(parsing: TestData.torture("bext01"))
        do {
            try request.validate(capabilities: Capabilities())
            Issue.record("expected 420")
        } catch {
            #expect(error.status == 420)
            #expect(error.detail == ["nothingSupportsThis", "nothingSupportsThisEither"])
        }
    }

    @Test func baddateIsAcceptedButItsDateViewReportsTheZone() throws {
        let request = try SIPRequest(parsing: TestData.torture("baddate"))
        #expect(throws: MessageError.self) { try request.date }
    }

    @Test func unusualReasonPhrasesAreKept() throws {
        let response = try SIPResponse(parsing: TestData.torture("unreason"))
        #expect(response.reasonPhrase.hasPrefix("= 2**3 * 5**2 "))
        let empty = try SIPResponse(parsing: TestData.torture("noreason"))
        #expect(empty.statusCode == 100)
        #expect(empty.reasonPhrase == "")
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
