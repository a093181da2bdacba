import SIPMessage
import Testing

/// `SIPResponse.serialized()` writes each response into one array of its exact size: the bytes must be the ones
/// `serialize(into:)` appends, whatever the fields (duplicate or missing Content-Length, folded values, a
/// reason phrase with a line break, a body).
@Suite struct ResponseSerializationTests {
    static func general(_ response: SIPResponse) -> [UInt8] {
        var buffer: [UInt8] = []
        response.serialize(into: &buffer)
        return buffer
    }

    static let responseFiles = [
        "02_100_trying.sip", "03_180_ringing.sip", "04_200_ok_invite.sip", "07_200_ok_bye.sip",
        "09_401_unauthorized.sip",
    ]

    @Test("received responses", arguments: responseFiles)
    func receivedResponses(_ file: String) throws {
        let response = try SIPResponse(parsing: TestData.bench(file))
        #expect(response.serialized() == Self.general(response))
        #expect(try SIPResponse(parsing: response.serialized()).statusCode == response.statusCode)
    }

    @Test func builtResponses() throws {
        let request = try SIPRequest(parsing: TestData.bench("01_invite.sip"))
        var ringing = SIPResponse(answering: request, status: 180, toTag: "a6c85cf")
        ringing.headerFields.append(.server, "Switchboard")
        #expect(ringing.serialized() == Self.general(ringing))

        // Two Content-Length fields: the first is written with the body's length, the second left out.
        var ok = SIPResponse(answering: request, status: 200, toTag: "a6c85cf")
        ok.headerFields.append(name: .contentLength, value: "999")
        ok.headerFields.append(name: .contentLength, value: "5")
        ok.body = Array("v=0\r\n".utf8)
        let bytes = ok.serialized()
        #expect(bytes == Self.general(ok))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.utf8.count - text.replacing("Content-Length", with: "").utf8.count == 14)
        #expect(text.hasSuffix("Content-Length: 5\r\n\r\nv=0\r\n"))

        // A reason phrase with a line break and an odd status code take the general path, with the same result.
        var odd = SIPResponse(statusCode: 799, reasonPhrase: "Two\r\nLines", headerFields: ringing.headerFields)
        #expect(odd.serialized() == Self.general(odd))
        odd.statusCode = -1
        #expect(odd.serialized() == Self.general(odd))
        #expect(SIPResponse(statusCode: 200).serialized() == Self.general(SIPResponse(statusCode: 200)))
    }

    /// Names and values of every length from 1 to 80 bytes, each byte distinct from its neighbours: a run is
    /// copied in words up to 64 bytes (the last word overlapping), so each length must come out whole.
    @Test func everyRunLength() throws {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var response = SIPResponse(statusCode: 200)
        for length in 1...80 {
            let run = (0..<length).map { alphabet[($0 + length) % alphabet.count] }
            let text = String(decoding: run, as: UTF8.self)
            response.headerFields.append(name: try #require(SIPField.Name("X-" + text)), value: text)
        }
        response.body = Array("v=0\r\n".utf8)
        #expect(response.serialized() == Self.general(response))
    }
}
