/// One WebSocket frame (RFC 6455 §5.2): FIN, the reserved bits, the opcode and the unmasked payload.
public struct WebSocketFrame: Sendable, Hashable {
    /// Whether this is the last frame of its message.
    public var isFinal: Bool
    /// RSV1-3 as the low three bits (0 unless an extension is negotiated).
    public var reservedBits: UInt8
    /// What the frame carries.
    public var opcode: WebSocketOpcode
    /// The application data, unmasked.
    public var payload: [UInt8]

    /// A frame.
    /// - Parameters:
    ///   - opcode: what the frame carries.
    ///   - payload: the application data, unmasked.
    ///   - isFinal: whether this frame ends its message (control frames always do).
    ///   - reservedBits: RSV1-3 (low three bits); 0 without extensions.
    public init(_ opcode: WebSocketOpcode, payload: [UInt8], isFinal: Bool = true, reservedBits: UInt8 = 0) {
        self.opcode = opcode
        self.payload = payload
        self.isFinal = isFinal
        self.reservedBits = reservedBits & 0x7
    }

    /// The frame on the wire, masked with `maskingKey` (client to server, §5.3) or unmasked when `nil`.
    /// The length uses the shortest of the 7-, 16- and 64-bit forms (§5.2).
    /// - Parameter maskingKey: the 32-bit masking key, its first octet in the high byte.
    public func serialized(maskingKey: UInt32? = nil) -> [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out, maskingKey: maskingKey)
        return out
    }

    /// Appends the frame to `out`; see `serialized(maskingKey:)`.
    public func serialize(into out: inout [UInt8], maskingKey: UInt32? = nil) {
        let count = payload.count
        out.reserveCapacity(out.count + count + 14)
        out.append((isFinal ? 0x80 : 0) | (reservedBits & 0x7) << 4 | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if count <= 125 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(count >> 8))
            out.append(UInt8(count & 0xFF))
        } else {
            out.append(maskBit | 127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((length >> UInt64(shift)) & 0xFF)) }
        }
        guard let maskingKey else {
            out.append(contentsOf: payload)
            return
        }
        let key = WebSocketFrame.maskBytes(maskingKey)
        out.append(contentsOf: key)
        for (i, byte) in payload.enumerated() { out.append(byte ^ key[i & 3]) }
    }

    /// The four octets of a masking key, in wire order.
    static func maskBytes(_ key: UInt32) -> [UInt8] {
        [UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF)]
    }

    /// The frames of a data message: one frame, or `fragmentSize`-byte fragments (at least one byte each)
    /// when the payload is longer.
    /// - Parameters:
    ///   - message: the message to send.
    ///   - fragmentSize: the largest payload per frame; `nil` sends one frame.
    public static func frames(for message: WebSocketMessage, fragmentSize: Int? = nil) -> [WebSocketFrame] {
        let payload = message.payload
        guard let fragmentSize, fragmentSize > 0, payload.count > fragmentSize else {
            return [WebSocketFrame(message.opcode, payload: payload)]
        }
        var frames: [WebSocketFrame] = []
        var start = 0
        while start < payload.count {
            let end = min(start + fragmentSize, payload.count)
            frames.append(
                WebSocketFrame(
                    start == 0 ? message.opcode : .continuation, payload: Array(payload[start..<end]),
                    isFinal: end == payload.count))
            start = end
        }
        return frames
    }
}
