import SIPTransport

// libFuzzer entry point over the WebSocket layer: the server and client handshakes, then the frame decoder
// and the connection state machine in both roles, with the input cut into chunks the input itself chooses.
// Built only by scripts/fuzz (`--sanitize=fuzzer`); a plain build makes an empty program.

/// A small deterministic generator seeded from the input: chunk sizes and masking keys.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Returns the given words in turn.
struct Words: RandomNumberGenerator {
    var words: [UInt64]
    var index = 0
    mutating func next() -> UInt64 {
        defer { index += 1 }
        return index < words.count ? words[index] : 0
    }
}

/// `bytes` in chunks of 1...maximum bytes.
func chunks(_ bytes: ArraySlice<UInt8>, _ random: inout SplitMix, maximum: Int) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var start = bytes.startIndex
    while start < bytes.endIndex {
        let end = min(bytes.endIndex, start + 1 + Int(random.next() % UInt64(max(1, maximum))))
        result.append(bytes[start..<end])
        start = end
    }
    return result
}

/// A decoded message must come back the same after encoding (fragmented as the input says) and decoding.
func roundTrip(_ message: WebSocketMessage, decoderRole: WebSocketRole, _ random: inout SplitMix) {
    let fragmentSize = Int(random.next() % 40)
    var wire: [UInt8] = []
    for frame in WebSocketFrame.frames(for: message, fragmentSize: fragmentSize == 0 ? nil : fragmentSize) {
        frame.serialize(
            into: &wire, maskingKey: decoderRole == .server ? UInt32(truncatingIfNeeded: random.next()) : nil)
    }
    var decoder = WebSocketFrameDecoder(role: decoderRole)
    decoder.append(wire)
    guard decoder.next() == .message(message) else { fatalError("message did not round-trip") }
    guard decoder.next() == nil else { fatalError("bytes left after a round trip") }
}

/// Runs a decoder over the chunks, checking that it always makes progress and never asks for nothing.
func decode(_ bytes: ArraySlice<UInt8>, role: WebSocketRole, limits: WebSocketLimits, _ random: inout SplitMix) {
    var decoder = WebSocketFrameDecoder(role: role, limits: limits)
    for chunk in chunks(bytes, &random, maximum: 64) {
        decoder.append(chunk)
        var budget = chunk.count + bytes.count + 4
        while budget > 0, let output = decoder.next() {
            budget -= 1
            switch output {
            case .needMore(let minimum):
                if minimum < 1 { fatalError("needMore(\(minimum))") }
            case .message(let message):
                if message.payload.count > limits.maximumMessageSize { fatalError("message over the limit") }
                roundTrip(message, decoderRole: role, &random)
                continue
            case .close(let close):
                if let close, !close.code.isValidOnWire { fatalError("invalid close code let through") }
                continue
            case .ping(let payload), .pong(let payload):
                if payload.count > 125 { fatalError("control frame over 125 bytes") }
                continue
            case .failed:
                break
            }
            break
        }
        if budget == 0 { fatalError("decoder made no progress") }
    }
    if decoder.bufferedByteCount > bytes.count { fatalError("decoder holds more than it was given") }
}

/// Runs a connection over the chunks, checking its state after each.
func connect(_ bytes: ArraySlice<UInt8>, role: WebSocketRole, limits: WebSocketLimits, _ random: inout SplitMix) {
    var connection = WebSocketConnection(role: role, limits: limits, maskingKeys: SplitMix(state: random.next()))
    if random.next() % 4 == 0 { _ = connection.close() }
    for chunk in chunks(bytes, &random, maximum: 64) {
        for action in connection.receive(chunk) {
            if case .send(let out) = action, out.isEmpty { fatalError("empty send") }
        }
        if random.next() % 8 == 0 { _ = connection.ping([1, 2, 3]) }
        if random.next() % 16 == 0 { _ = connection.send(.text("x")) }
    }
    _ = connection.connectionLost()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var random = SplitMix(state: UInt64(bytes[0]) | UInt64(size) << 8)
    let limits = WebSocketLimits(maximumMessageSize: 1024, maximumHandshakeSize: 2048)

    // A server reading an upgrade request, then frames from the same stream.
    var server = WebSocketServerHandshake(limits: limits)
    var accepted = false
    for chunk in chunks(bytes[...], &random, maximum: 200) where !accepted {
        switch server.receive(chunk) {
        case .needMore: continue
        case .accepted(_, let response, let remainder):
            accepted = true
            if response.isEmpty { fatalError("empty 101") }
            let rest = remainder + bytes[(chunk.endIndex)...]
            decode(rest[...], role: .server, limits: limits, &random)
            connect(rest[...], role: .server, limits: limits, &random)
        case .rejected(_, let response):
            if response.isEmpty { fatalError("empty refusal") }
            accepted = true
        }
    }

    // A client reading a server's answer; its key is RFC 6455's sample nonce, so the seeds' 101 can match.
    var keys = Words(words: [0x7468_6520_7361_6D70, 0x6C65_206E_6F6E_6365])
    if var client = try? WebSocketClientHandshake(host: "example.com", path: "/", limits: limits, using: &keys) {
        for chunk in chunks(bytes[...], &random, maximum: 200) {
            guard case .needMore = client.receive(chunk) else { break }
        }
    }

    // The bytes as frames, both roles.
    for role in [WebSocketRole.server, .client] {
        decode(bytes[1...], role: role, limits: limits, &random)
        connect(bytes[1...], role: role, limits: limits, &random)
    }
    return 0
}
