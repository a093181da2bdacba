import COpenSSL

/// The facts both ends of the opening handshake share (RFC 6455 §4, RFC 7118 §4).
public enum WebSocketHandshake {
    /// The subprotocol SIP uses (RFC 7118 §4).
    public static let sipSubprotocol = "sip"
    /// The only protocol version (RFC 6455 §4.1).
    public static let version = "13"
    /// Appended to the key before hashing (RFC 6455 §1.3).
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The Sec-WebSocket-Accept value for a Sec-WebSocket-Key: base64(SHA-1(key + GUID)) (RFC 6455 §1.3, §4.2.2).
    /// - Parameter key: the Sec-WebSocket-Key value exactly as sent.
    public static func acceptValue(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        input.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { out in
                _ = SHA1(source.baseAddress, source.count, out.baseAddress)
            }
        }
        return WebSocketBase64.encode(digest)
    }

    /// Whether a header value can go on the wire as is: no control characters (CR, LF, NUL...).
    static func isSafeFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
    }
}
