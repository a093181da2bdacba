import SIPMessage
import Testing

/// `SIPRequest.serializedCount` counts the wire form without writing it: it must be the size of
/// `serialized()` for every request, received or built.
@Suite struct RequestSizeTests {
    @Test func receivedRequestsCountWhatTheyWrite() throws {
        var paths = TestData.files(in: "bench", suffix: ".sip").map { "bench/\($0)" }
        paths += TestData.files(in: "rfc4475", suffix: ".dat").map { "rfc4475/\($0)" }
        var counted = 0
        for path in paths {
            guard let request = try? SIPRequest(parsing: TestData.bytes(path)) else { continue }
            #expect(request.serializedCount == request.serialized().count, "\(path)")
            counted += 1
        }
        #expect(counted >= 20)
    }

    @Test func builtRequestsCountWhatTheyWrite() throws {
        var request = try SIPRequest(parsing: TestData.bench("01_invite.sip"))
        request.headerFields.append(name: .contentLength, value: "999")
        request.body = Array("v=0\r\n".utf8)
        #expect(request.serializedCount == request.serialized().count)
        request.headerFields.removeAll(.contentLength)
        request.body = []
        #expect(request.serializedCount == request.serialized().count)
        request.uri = try URI("tel:+15551234567;phone-context=example.com")
        #expect(request.serializedCount == request.serialized().count)
        request.uri = try URI("urn:service:sos")
        #expect(request.serializedCount == request.serialized().count)
    }
}
