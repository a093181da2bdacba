import Testing

@testable import SIPTransport

@Suite("WebSocket frames refused, each with its close code")
struct WebSocketRejectionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let role: WebSocketRole
        let bytes: [UInt8]
        let kind: WebSocketError.Kind
        let closeCode: WebSocketCloseCode
        var limit = 65536
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "unmasked frame to a server", role: .server,
            bytes: WebSocketFrame(.text, payload: [0x41]).serialized(),
            kind: .wrongMasking, closeCode: .protocolError),
        Case(
            name: "masked frame to a client", role: .client, bytes: masked(WebSocketFrame(.text, payload: [0x41])),
            kind: .wrongMasking, closeCode: .protocolError),
        Case(
            name: "RSV1 without an extension", role: .server,
            bytes: masked(WebSocketFrame(.text, payload: [0x41], reservedBits: 0b100)), kind: .reservedBits,
            closeCode: .protocolError),
        Case(
            name: "RSV3 without an extension", role: .client,
            bytes: WebSocketFrame(.binary, payload: [], reservedBits: 0b001).serialized(), kind: .reservedBits,
            closeCode: .protocolError),
        Case(
            name: "reserved data opcode 3", role: .server,
            bytes: masked(WebSocketFrame(WebSocketOpcode(rawValue: 3), payload: [])), kind: .unknownOpcode,
            closeCode: .protocolError),
        Case(
            name: "reserved control opcode 11", role: .client,
            bytes: WebSocketFrame(WebSocketOpcode(rawValue: 11), payload: []).serialized(), kind: .unknownOpcode,
            closeCode: .protocolError),
        Case(
            name: "ping without FIN", role: .server, bytes: masked(WebSocketFrame(.ping, payload: [], isFinal: false)),
            kind: .fragmentedControlFrame, closeCode: .protocolError),
        Case(
            name: "ping of 126 bytes", role: .server,
            bytes: masked(WebSocketFrame(.ping, payload: .init(repeating: 0, count: 126))),
            kind: .oversizedControlFrame, closeCode: .protocolError),
        Case(
            name: "close of 126 bytes", role: .client,
            bytes: WebSocketFrame(.close, payload: [0x03, 0xE8] + .init(repeating: 0x61, count: 124)).serialized(),
            kind: .oversizedControlFrame, closeCode: .protocolError),
        Case(
            name: "continuation without a start", role: .server,
            bytes: masked(WebSocketFrame(.continuation, payload: [0x41])), kind: .unexpectedContinuation,
            closeCode: .protocolError),
        Case(
            name: "text frame inside a fragmented message", role: .server,
            bytes: masked(WebSocketFrame(.text, payload: [0x41], isFinal: false))
                + masked(WebSocketFrame(.text, payload: [0x42])), kind: .interleavedDataFrame,
            closeCode: .protocolError),
        Case(
            name: "binary frame inside a fragmented text message", role: .client,
            bytes: WebSocketFrame(.text, payload: [0x41], isFinal: false).serialized()
                + WebSocketFrame(.binary, payload: [0x42]).serialized(), kind: .interleavedDataFrame,
            closeCode: .protocolError),
        Case(
            name: "64-bit length with the top bit set", role: .client,
            bytes: [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], kind: .invalidLength, closeCode: .protocolError),
        Case(
            name: "one-byte close body", role: .server, bytes: masked(WebSocketFrame(.close, payload: [0x03])),
            kind: .invalidCloseCode, closeCode: .protocolError),
        Case(
            name: "close code 999", role: .server, bytes: masked(WebSocketFrame(.close, payload: [0x03, 0xE7])),
            kind: .invalidCloseCode, closeCode: .protocolError),
        Case(
            name: "close code 1004", role: .server, bytes: masked(WebSocketFrame(.close, payload: [0x03, 0xEC])),
            kind: .invalidCloseCode, closeCode: .protocolError),
        Case(
            name: "close code 1005 on the wire", role: .client,
            bytes: WebSocketFrame(.close, payload: [0x03, 0xED]).serialized(), kind: .invalidCloseCode,
            closeCode: .protocolError),
        Case(
            name: "close code 1006 on the wire", role: .client,
            bytes: WebSocketFrame(.close, payload: [0x03, 0xEE]).serialized(), kind: .invalidCloseCode,
            closeCode: .protocolError),
        Case(
            name: "close code 1015 on the wire", role: .client,
            bytes: WebSocketFrame(.close, payload: [0x03, 0xF7]).serialized(), kind: .invalidCloseCode,
            closeCode: .protocolError),
        Case(
            name: "close code 2999", role: .client, bytes: WebSocketFrame(.close, payload: [0x0B, 0xB7]).serialized(),
            kind: .invalidCloseCode, closeCode: .protocolError),
        Case(
            name: "close code 5000", role: .client, bytes: WebSocketFrame(.close, payload: [0x13, 0x88]).serialized(),
            kind: .invalidCloseCode, closeCode: .protocolError),
        Case(
            name: "invalid UTF-8 in a text message", role: .server,
            bytes: masked(WebSocketFrame(.text, payload: [0xC3, 0x28])),
            kind: .invalidUTF8, closeCode: .invalidPayloadData),
        Case(
            name: "invalid UTF-8 across fragments", role: .client,
            bytes: WebSocketFrame(.text, payload: [0xE2, 0x82], isFinal: false).serialized()
                + WebSocketFrame(.continuation, payload: [0x28]).serialized(), kind: .invalidUTF8,
            closeCode: .invalidPayloadData),
        Case(
            name: "invalid UTF-8 in a close reason", role: .server,
            bytes: masked(WebSocketFrame(.close, payload: [0x03, 0xE8, 0xFF])), kind: .invalidUTF8,
            closeCode: .invalidPayloadData),
        Case(
            name: "a frame over the message limit", role: .server,
            bytes: masked(WebSocketFrame(.binary, payload: .init(repeating: 0, count: 17))), kind: .messageTooBig,
            closeCode: .messageTooBig, limit: 16),
        Case(
            name: "fragments over the message limit together", role: .client,
            bytes: WebSocketFrame.frames(for: .binary(.init(repeating: 0, count: 20)), fragmentSize: 10)
                .flatMap { $0.serialized() }, kind: .messageTooBig, closeCode: .messageTooBig, limit: 16),
    ]

    @Test("Each violation is a typed error with its close code", arguments: cases)
    func rejected(_ test: Case) {
        let limits = WebSocketLimits(maximumMessageSize: test.limit)
        for chunk in [Int.max, 1] {
            let outputs = decodeAll(test.bytes, role: test.role, chunk: chunk, limits: limits)
            guard case .failed(let error) = outputs.last else {
                Issue.record("\(test.name): \(outputs)")
                continue
            }
            #expect(error.kind == test.kind)
            #expect(error.closeCode == test.closeCode)
        }
    }

    @Test("An oversized frame is refused from its header, before its payload is buffered")
    func refusedBeforeBuffering() {
        var decoder = WebSocketFrameDecoder(role: .client, limits: WebSocketLimits(maximumMessageSize: 1000))
        decoder.append([0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0])
        guard case .failed(let error) = decoder.next() else {
            Issue.record("not refused")
            return
        }
        #expect(error.kind == .messageTooBig)
        // The failure stays; later bytes are ignored.
        decoder.append([0x81, 0x00])
        #expect(decoder.next() == .failed(error))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("The codes that may be sent", arguments: [1000, 1001, 1002, 1003, 1007, 1011, 1014, 3000, 4999] as [UInt16])
    func validCodes(_ code: UInt16) {
        let payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        #expect(
            decodeAll(WebSocketFrame(.close, payload: payload).serialized(), role: .client)
                == [.close(WebSocketClose(code: WebSocketCloseCode(rawValue: code)))])
    }
}
