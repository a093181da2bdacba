import Testing

@testable import SIPTransport

@Suite("WebSocket frames (RFC 6455 §5)")
struct WebSocketFrameTests {
    static let hello = Array("Hello".utf8)

    @Test("§5.7: a single-frame unmasked text message")
    func unmaskedText() {
        let wire = [UInt8](hex: "810548656c6c6f")
        #expect(WebSocketFrame(.text, payload: Self.hello).serialized() == wire)
        #expect(decodeAll(wire, role: .client) == [.message(.text("Hello"))])
    }

    @Test("§5.7: a single-frame masked text message")
    func maskedText() {
        let wire = [UInt8](hex: "818537fa213d7f9f4d5158")
        #expect(WebSocketFrame(.text, payload: Self.hello).serialized(maskingKey: 0x37fa_213d) == wire)
        #expect(decodeAll(wire, role: .server) == [.message(.text("Hello"))])
    }

    @Test("§5.7: a fragmented unmasked text message")
    func fragmentedText() {
        let wire = [UInt8](hex: "010348656c" + "80026c6f")
        let frames = WebSocketFrame.frames(for: .text("Hello"), fragmentSize: 3)
        #expect(frames.flatMap { $0.serialized() } == wire)
        #expect(decodeAll(wire, role: .client) == [.message(.text("Hello"))])
    }

    @Test("§5.7: an unmasked ping and a masked pong")
    func pingPong() {
        let ping = [UInt8](hex: "890548656c6c6f")
        let pong = [UInt8](hex: "8a8537fa213d7f9f4d5158")
        #expect(WebSocketFrame(.ping, payload: Self.hello).serialized() == ping)
        #expect(WebSocketFrame(.pong, payload: Self.hello).serialized(maskingKey: 0x37fa_213d) == pong)
        #expect(decodeAll(ping, role: .client) == [.ping(Self.hello)])
        #expect(decodeAll(pong, role: .server) == [.pong(Self.hello)])
    }

    @Test("§5.7: 256 bytes of binary take the 16-bit length")
    func sixteenBitLength() {
        let payload = (0..<256).map { UInt8($0 & 0xFF) }
        let wire = WebSocketFrame(.binary, payload: payload).serialized()
        #expect(Array(wire.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(wire.count == 4 + 256)
        #expect(decodeAll(wire, role: .client) == [.message(.binary(payload))])
    }

    @Test("§5.7: 64 KiB of binary take the 64-bit length")
    func sixtyFourBitLength() {
        let payload = (0..<65536).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let wire = WebSocketFrame(.binary, payload: payload).serialized()
        #expect(Array(wire.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0, 0])
        #expect(decodeAll(wire, role: .client) == [.message(.binary(payload))])
        #expect(
            decodeAll(masked(WebSocketFrame(.binary, payload: payload)), role: .server, chunk: 1000)
                == [.message(.binary(payload))])
    }

    @Test("125 and 126 bytes: the edge of the 7-bit length")
    func sevenBitEdge() {
        #expect(WebSocketFrame(.binary, payload: .init(repeating: 1, count: 125)).serialized()[1] == 125)
        #expect(WebSocketFrame(.binary, payload: .init(repeating: 1, count: 126)).serialized()[1] == 126)
        #expect(WebSocketFrame(.binary, payload: .init(repeating: 1, count: 65535)).serialized()[1] == 126)
        #expect(WebSocketFrame(.binary, payload: .init(repeating: 1, count: 65536)).serialized()[1] == 127)
    }

    @Test("Bytes arriving one at a time come out only as whole frames", arguments: [WebSocketRole.client, .server])
    func oneByteAtATime(role: WebSocketRole) {
        let frames: [WebSocketFrame] =
            [WebSocketFrame(.ping, payload: [1, 2])]
            + WebSocketFrame.frames(for: .text("Grüße, SIP"), fragmentSize: 4)
            + [
                WebSocketFrame(.binary, payload: .init(repeating: 9, count: 300)),
                WebSocketFrame(.text, payload: []),
                WebSocketFrame(.close, payload: WebSocketClose(code: .goingAway, reason: "bye").payload),
            ]
        let wire = frames.flatMap { role == .server ? masked($0) : $0.serialized() }
        var decoder = WebSocketFrameDecoder(role: role)
        var outputs: [WebSocketFrameDecoder.Output] = []
        for byte in wire {
            decoder.append([byte])
            while let output = decoder.next() {
                if case .needMore(let minimum) = output {
                    #expect(minimum >= 1)
                    break
                }
                outputs.append(output)
            }
        }
        #expect(
            outputs == [
                .ping([1, 2]), .message(.text("Grüße, SIP")), .message(.binary(.init(repeating: 9, count: 300))),
                .message(.text("")), .close(WebSocketClose(code: .goingAway, reason: "bye")),
            ])
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("needMore names the bytes still missing")
    func needMore() {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append([0x81])
        #expect(decoder.next() == .needMore(minimum: 1))
        decoder.append([0x7E])
        #expect(decoder.next() == .needMore(minimum: 2))
        decoder.append([0x00, 0x80])
        #expect(decoder.next() == .needMore(minimum: 128))
        #expect(decoder.bufferedByteCount == 4)
    }

    @Test("A ping between two fragments comes out first, the message whole after it")
    func interleavedControl() {
        var frames = WebSocketFrame.frames(for: .binary([1, 2, 3, 4]), fragmentSize: 2)
        frames.insert(WebSocketFrame(.ping, payload: []), at: 1)
        let wire = frames.flatMap(masked)
        #expect(decodeAll(wire, role: .server) == [.ping([]), .message(.binary([1, 2, 3, 4]))])
    }

    @Test("A UTF-8 character split across fragments is valid")
    func splitCharacter() {
        let bytes = Array("é".utf8)
        let wire =
            WebSocketFrame(.text, payload: [bytes[0]], isFinal: false).serialized()
            + WebSocketFrame(.continuation, payload: [bytes[1]]).serialized()
        #expect(decodeAll(wire, role: .client) == [.message(.text("é"))])
    }

    @Test("Close bodies: empty, a code, a code and a reason")
    func closeBodies() {
        #expect(decodeAll(masked(WebSocketFrame(.close, payload: [])), role: .server) == [.close(nil)])
        #expect(
            decodeAll(WebSocketFrame(.close, payload: [0x03, 0xE8]).serialized(), role: .client)
                == [.close(WebSocketClose(code: .normalClosure))])
        let close = WebSocketClose(code: WebSocketCloseCode(rawValue: 4000), reason: "done")
        #expect(decodeAll(masked(WebSocketFrame(.close, payload: close.payload)), role: .server) == [.close(close)])
        // Nothing is decoded after the close.
        let after = masked(WebSocketFrame(.close, payload: [])) + masked(WebSocketFrame(.text, payload: [0x41]))
        #expect(decodeAll(after, role: .server) == [.close(nil)])
    }

    @Test("A close reason is cut at 123 bytes without splitting a character")
    func longReason() {
        let close = WebSocketClose(code: .normalClosure, reason: String(repeating: "é", count: 100))
        #expect(close.reason.utf8.count == 122)
        #expect(close.payload.count <= 125)
    }
}
