import SIPMessage
import Testing

@Suite("Stream framer")
struct FramerTests {
    let options = Array(
        "OPTIONS sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/TCP a.example.com;branch=z9hG4bK1\r\nFrom: <sip:alice@example.com>;tag=1\r\nTo: <sip:bob@example.com>\r\nCall-ID: framer-1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 5\r\n\r\nhello"
            .utf8)

    func drain(_ framer: inout StreamFramer) -> [StreamFramer.Output] {
        var out: [StreamFramer.Output] = []
        while let next = framer.next() {
            out.append(next)
            if case .needMore = next { break }
            if case .close = next { break }
        }
        return out
    }

    @Test func byteByByte() throws {
        var framer = StreamFramer()
        var messages: [Message] = []
        for b in options {
            framer.append([b])
            while let next = framer.next() {
                if case .message(let m) = next { messages.append(m) }
                if case .needMore = next { break }
            }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.bodyBytes == ArraySlice(Array("hello".utf8)))
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func severalMessagesInOneRead() throws {
        var framer = StreamFramer()
        framer.append(options + options + options)
        let out = drain(&framer)
        #expect(out.count == 3)
        for o in out {
            guard case .message(let m) = o else {
                Issue.record("expected a message, got \(o)")
                continue
            }
            #expect(try m.headerFields.callID == "framer-1")
        }
    }

    @Test func keepAlivesAreReported() {
        var framer = StreamFramer()
        framer.append(Array("\r\n\r\n".utf8) + options + Array("\r\n".utf8))
        let out = drain(&framer)
        #expect(out.count == 3)
        #expect(out.first == .ping)
        if case .message = out[1] {} else { Issue.record("expected a message") }
        #expect(out.last == .pong)
    }

    /// Found by the fuzzer: each stray LF used to cost a recursive call, so a long run of them overflowed
    /// the stack. They are skipped in a loop now, however many arrive.
    @Test func manyStrayLineFeedsAreSkippedWithoutRecursion() {
        var framer = StreamFramer()
        framer.append([UInt8](repeating: 0x0A, count: 200_000) + options)
        let out = drain(&framer)
        #expect(out.count == 1)
        if case .message = out.first {} else { Issue.record("expected the message after the line feeds") }
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func partialBodyNeedsExactlyTheRest() {
        var framer = StreamFramer()
        framer.append(options.dropLast(3))
        #expect(framer.next() == .needMore(minimum: 3))
        framer.append(options.suffix(3))
        if case .message? = framer.next() {} else { Issue.record("expected a message") }
        #expect(framer.next() == nil)
    }

    @Test func missingContentLengthCloses() {
        var framer = StreamFramer()
        framer.append(Array("OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n\r\n".utf8))
        guard case .close(let error)? = framer.next() else {
            Issue.record("expected close")
            return
        }
        #expect(error.status == 400)
        // Closed stays closed.
        framer.append(options)
        if case .close? = framer.next() {} else { Issue.record("expected close again") }
    }

    @Test func oversizedHeadIsRefusedBeforeItIsWhole() {
        var framer = StreamFramer(limits: ParserLimits(maximumMessageSize: 1024))
        framer.append(Array("OPTIONS sip:a@b SIP/2.0\r\nX-Long: ".utf8) + [UInt8](repeating: 0x61, count: 2000))
        guard case .close(let error)? = framer.next() else {
            Issue.record("expected close")
            return
        }
        #expect(error.status == 513)
    }

    @Test func oversizedBodyIsRefusedFromItsContentLength() {
        var framer = StreamFramer(limits: ParserLimits(maximumMessageSize: 1024))
        framer.append(Array("OPTIONS sip:a@b SIP/2.0\r\nContent-Length: 900000\r\n\r\n".utf8))
        guard case .close(let error)? = framer.next() else {
            Issue.record("expected close")
            return
        }
        #expect(error.status == 413)
    }

    @Test func aBadStartLineIsSkippedAndTheStreamGoesOn() throws {
        var framer = StreamFramer()
        framer.append(Array("OPTIONS sip:a@b SIP/3.0\r\nContent-Length: 2\r\n\r\nxx".utf8) + options)
        let out = drain(&framer)
        #expect(out.count == 2)
        guard case .invalid(let error) = out[0] else {
            Issue.record("expected invalid")
            return
        }
        #expect(error.status == 505)
        if case .message = out[1] {} else { Issue.record("expected the next message") }
    }

    @Test func benchmarkMessagesFrameBackToBack() throws {
        let files = TestData.files(in: "bench", suffix: ".sip")
        var stream: [UInt8] = []
        for f in files { stream += TestData.bench(f) }
        for chunk in [1, 7, 64, 1500, stream.count] {
            var framer = StreamFramer()
            var count = 0
            var i = 0
            while i < stream.count {
                framer.append(stream[i..<min(i + chunk, stream.count)])
                i += chunk
                while let next = framer.next() {
                    if case .message = next { count += 1 } else { break }
                }
            }
            #expect(count == files.count, "chunk \(chunk)")
        }
    }
}
