/// Size limits for a WebSocket connection.
public struct WebSocketLimits: Sendable, Hashable {
    /// The largest data message, reassembled, in bytes; a frame that would pass it is refused with 1009
    /// before its payload is buffered.
    public var maximumMessageSize: Int
    /// The largest opening-handshake head (request or response line and header fields), in bytes.
    public var maximumHandshakeSize: Int

    /// Limits.
    /// - Parameters:
    ///   - maximumMessageSize: the largest data message in bytes (default 64 KiB).
    ///   - maximumHandshakeSize: the largest handshake head in bytes (default 8 KiB).
    public init(maximumMessageSize: Int = 65536, maximumHandshakeSize: Int = 8192) {
        self.maximumMessageSize = max(0, maximumMessageSize)
        self.maximumHandshakeSize = max(0, maximumHandshakeSize)
    }
}

/// Splits a WebSocket byte stream into messages and control frames (RFC 6455 §5): partial reads are buffered,
/// fragments are reassembled, and nothing comes out until a whole frame is there. Every violation is a typed
/// `WebSocketError` naming the close code to send.
///
/// Feed bytes with `append(_:)`, then call `next()` until it returns `nil` (nothing buffered) or `.needMore`.
/// After `.failed`, the connection must be failed; `next()` keeps returning it. After `.close`, the peer sends
/// nothing more and `next()` returns `nil`.
public struct WebSocketFrameDecoder: Sendable {
    /// What the stream holds next.
    public enum Output: Sendable, Hashable {
        /// A whole data message, reassembled across its fragments.
        case message(WebSocketMessage)
        /// A ping with its application data: answer with a pong carrying the same bytes.
        case ping([UInt8])
        /// A pong with its application data.
        case pong([UInt8])
        /// A close frame: its code and reason, or `nil` when it had no body (1005).
        case close(WebSocketClose?)
        /// The buffered bytes are an incomplete frame; at least `minimum` more bytes are needed.
        case needMore(minimum: Int)
        /// The peer broke the protocol: send a close frame with the error's code, then close.
        case failed(WebSocketError)
    }

    /// Whose frames this decodes for: a server expects masked frames, a client unmasked ones.
    public let role: WebSocketRole
    /// The size limits.
    public let limits: WebSocketLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The fragments of the message being reassembled, and its opcode.
    private var partial: [UInt8] = []
    private var partialOpcode: WebSocketOpcode?
    private var failure: WebSocketError?
    private var isClosed = false

    /// A decoder for one end of a connection.
    /// - Parameters:
    ///   - role: this end's role (a server decodes a client's masked frames).
    ///   - limits: the size limits.
    public init(role: WebSocketRole, limits: WebSocketLimits = WebSocketLimits()) {
        self.role = role
        self.limits = limits
    }

    /// Bytes buffered and not yet returned, including the fragments of an unfinished message.
    public var bufferedByteCount: Int { buffer.count - readIndex + partial.count }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil, !isClosed else { return }
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next thing the stream holds, or `nil` when nothing is buffered (or the peer has closed).
    public mutating func next() -> Output? {
        if let failure { return .failed(failure) }
        guard !isClosed else { return nil }
        compactIfUseful()
        while true {
            let available = buffer.count - readIndex
            guard available > 0 else { return nil }
            guard available >= 2 else { return .needMore(minimum: 2 - available) }
            let first = buffer[readIndex]
            let second = buffer[readIndex + 1]
            let header = FrameHeader(first, second)
            if let error = check(header) { return fail(error) }
            let headerLength = header.headerLength
            guard available >= headerLength else { return .needMore(minimum: headerLength - available) }
            var length = UInt64(header.shortLength)
            if header.shortLength >= 126 {
                length = 0
                for k in 2..<(header.shortLength == 126 ? 4 : 10) {
                    length = length << 8 | UInt64(buffer[readIndex + k])
                }
                if length >> 63 != 0 { return fail(WebSocketError(.invalidLength, "64-bit length \(length)")) }
            }
            if !header.opcode.isControl, UInt64(partial.count) + length > UInt64(limits.maximumMessageSize) {
                return fail(
                    WebSocketError(
                        .messageTooBig, "\(UInt64(partial.count) + length) bytes, limit \(limits.maximumMessageSize)"))
            }
            // Control frames are at most 125 bytes and data frames are under the limit: the length fits an Int.
            let payloadLength = Int(length)
            guard available - headerLength >= payloadLength else {
                return .needMore(minimum: payloadLength - (available - headerLength))
            }
            let start = readIndex + headerLength
            var payload = Array(buffer[start..<(start + payloadLength)])
            if header.isMasked {
                let key = buffer[(start - 4)..<start].map { $0 }
                for i in payload.indices { payload[i] ^= key[i & 3] }
            }
            readIndex = start + payloadLength
            if header.opcode.isControl { return control(header.opcode, payload) }
            if header.opcode != .continuation { partialOpcode = header.opcode }
            partial.append(contentsOf: payload)
            if header.isFinal, let output = finishMessage() { return output }
        }
    }

    /// The frame-header rules that need no payload: reserved bits, opcodes, control frames, masking and
    /// fragmentation order.
    private func check(_ header: FrameHeader) -> WebSocketError? {
        if header.reservedBits != 0 {
            return WebSocketError(.reservedBits, "RSV bits \(header.reservedBits) with no extension")
        }
        guard header.opcode.isKnown else { return WebSocketError(.unknownOpcode, "\(header.opcode)") }
        if header.opcode.isControl {
            if !header.isFinal { return WebSocketError(.fragmentedControlFrame, "\(header.opcode) without FIN") }
            if header.shortLength > 125 {
                return WebSocketError(.oversizedControlFrame, "\(header.opcode) with an extended length")
            }
        }
        if header.isMasked != (role == .server) {
            return WebSocketError(
                .wrongMasking, role == .server ? "an unmasked frame from a client" : "a masked frame from a server")
        }
        if header.opcode == .continuation, partialOpcode == nil {
            return WebSocketError(.unexpectedContinuation)
        }
        if header.opcode == .text || header.opcode == .binary, partialOpcode != nil {
            return WebSocketError(.interleavedDataFrame, "\(header.opcode) frame")
        }
        return nil
    }

    private mutating func control(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> Output {
        switch opcode {
        case .ping: return .ping(payload)
        case .pong: return .pong(payload)
        default:
            switch WebSocketFrameDecoder.parseClose(payload) {
            case .success(let close):
                isClosed = true
                buffer = []
                readIndex = 0
                return .close(close)
            case .failure(let error):
                return fail(error)
            }
        }
    }

    /// A close frame's body (§5.5.1): empty, or a valid code and a UTF-8 reason.
    static func parseClose(_ payload: [UInt8]) -> Result<WebSocketClose?, WebSocketError> {
        if payload.isEmpty { return .success(nil) }
        guard payload.count >= 2 else { return .failure(WebSocketError(.invalidCloseCode, "a one-byte close body")) }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { return .failure(WebSocketError(.invalidCloseCode, "code \(code)")) }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            return .failure(WebSocketError(.invalidUTF8, "in a close reason"))
        }
        return .success(WebSocketClose(code: code, reason: reason))
    }

    /// The reassembled message, once its final fragment is in.
    private mutating func finishMessage() -> Output? {
        guard let opcode = partialOpcode else { return nil }
        let payload = partial
        partial = []
        partialOpcode = nil
        if opcode == .binary { return .message(.binary(payload)) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            return fail(WebSocketError(.invalidUTF8, "in a text message"))
        }
        return .message(.text(text))
    }

    private mutating func fail(_ error: WebSocketError) -> Output {
        failure = error
        buffer = []
        readIndex = 0
        partial = []
        partialOpcode = nil
        return .failed(error)
    }

    /// Drops consumed bytes once they are a large share of the buffer.
    private mutating func compactIfUseful() {
        guard readIndex > 0, readIndex >= 4096 || readIndex * 2 >= buffer.count else { return }
        buffer.removeSubrange(0..<readIndex)
        readIndex = 0
    }
}

/// The first two octets of a frame, taken apart (§5.2).
private struct FrameHeader {
    let isFinal: Bool
    let reservedBits: UInt8
    let opcode: WebSocketOpcode
    let isMasked: Bool
    /// The 7-bit length: the length itself, or 126/127 for the 16-/64-bit forms.
    let shortLength: Int

    init(_ first: UInt8, _ second: UInt8) {
        isFinal = first & 0x80 != 0
        reservedBits = (first >> 4) & 0x7
        opcode = WebSocketOpcode(rawValue: first)
        isMasked = second & 0x80 != 0
        shortLength = Int(second & 0x7F)
    }

    /// The octets before the payload: the two above, the extended length and the masking key.
    var headerLength: Int {
        2 + (shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0) + (isMasked ? 4 : 0)
    }
}
