/// Why a WebSocket peer's frames were refused (RFC 6455 §5, §7.4): each kind names the close code to
/// answer with.
public struct WebSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; compare with the static members.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        /// The close code that answers this error.
        public let closeCode: WebSocketCloseCode
        public let description: String

        public static func == (a: Kind, b: Kind) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }

        /// A frame masked when it must not be, or unmasked when it must be (§5.1).
        public static let wrongMasking = Kind(raw: 1, closeCode: .protocolError, description: "wrong masking")
        /// RSV1-3 set with no extension negotiated (§5.2).
        public static let reservedBits = Kind(raw: 2, closeCode: .protocolError, description: "reserved bits set")
        /// An opcode RFC 6455 reserves (§5.2).
        public static let unknownOpcode = Kind(raw: 3, closeCode: .protocolError, description: "unknown opcode")
        /// A control frame with FIN clear (§5.5).
        public static let fragmentedControlFrame = Kind(
            raw: 4, closeCode: .protocolError, description: "fragmented control frame")
        /// A control frame with more than 125 bytes of payload (§5.5).
        public static let oversizedControlFrame = Kind(
            raw: 5, closeCode: .protocolError, description: "control frame over 125 bytes")
        /// A continuation frame with no message to continue (§5.4).
        public static let unexpectedContinuation = Kind(
            raw: 6, closeCode: .protocolError, description: "continuation without a start")
        /// A text or binary frame while a fragmented message is still open (§5.4).
        public static let interleavedDataFrame = Kind(
            raw: 7, closeCode: .protocolError, description: "data frame inside a fragmented message")
        /// A 64-bit length with its most significant bit set (§5.2).
        public static let invalidLength = Kind(raw: 8, closeCode: .protocolError, description: "invalid length")
        /// A close frame with a one-byte body or a code that may not be sent (§5.5.1, §7.4).
        public static let invalidCloseCode = Kind(
            raw: 9, closeCode: .protocolError, description: "invalid close code")
        /// A text message or close reason that is not UTF-8 (§5.6, §8.1).
        public static let invalidUTF8 = Kind(raw: 10, closeCode: .invalidPayloadData, description: "invalid UTF-8")
        /// A message over the configured size limit (§7.4.1, 1009).
        public static let messageTooBig = Kind(raw: 11, closeCode: .messageTooBig, description: "message too big")
        /// A data frame after the close handshake began (§5.5.1).
        public static let frameAfterClose = Kind(raw: 12, closeCode: .protocolError, description: "frame after close")
    }

    /// What went wrong.
    public let kind: Kind
    /// Details for logs.
    public let detail: String

    /// An error of `kind` with details for logs.
    public init(_ kind: Kind, _ detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// The close code to send the peer.
    public var closeCode: WebSocketCloseCode { kind.closeCode }

    public var description: String { detail.isEmpty ? "\(kind)" : "\(kind): \(detail)" }
}

/// Why a WebSocket opening handshake failed (RFC 6455 §4, RFC 7118 §4).
public struct WebSocketHandshakeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; compare with the static members.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        public let description: String

        public static func == (a: Kind, b: Kind) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }

        /// The HTTP head grew past the configured limit before its empty line.
        public static let headTooLarge = Kind(raw: 1, description: "handshake head too large")
        /// The bytes are not an HTTP/1.1 head (start line, header lines).
        public static let malformed = Kind(raw: 2, description: "malformed HTTP head")
        /// A request with a method other than GET.
        public static let wrongMethod = Kind(raw: 3, description: "method is not GET")
        /// A request with no Host header field.
        public static let missingHost = Kind(raw: 4, description: "missing Host")
        /// No `Upgrade: websocket` or no `upgrade` token in Connection.
        public static let notAnUpgrade = Kind(raw: 5, description: "not a WebSocket upgrade")
        /// A Sec-WebSocket-Version other than 13.
        public static let unsupportedVersion = Kind(raw: 6, description: "unsupported WebSocket version")
        /// A Sec-WebSocket-Key that is not 16 bytes in base64.
        public static let invalidKey = Kind(raw: 7, description: "invalid Sec-WebSocket-Key")
        /// The `sip` subprotocol was not offered (server) or not chosen (client), RFC 7118 §4.
        public static let subprotocolMissing = Kind(raw: 8, description: "the sip subprotocol is missing")
        /// The server answered with a status other than 101.
        public static let rejected = Kind(raw: 9, description: "upgrade refused")
        /// The server's Sec-WebSocket-Accept does not match the key.
        public static let acceptMismatch = Kind(raw: 10, description: "Sec-WebSocket-Accept mismatch")
        /// The server chose an extension the client did not offer.
        public static let unexpectedExtension = Kind(raw: 11, description: "unexpected extension")
        /// A request for a path this server does not serve (404).
        public static let unknownResource = Kind(raw: 12, description: "unknown resource")
    }

    /// What went wrong.
    public let kind: Kind
    /// Details for logs: the field, the status line.
    public let detail: String
    /// The status a server answers with; for a client's `.rejected`, the status the server sent.
    public let status: Int

    /// An error of `kind`.
    /// - Parameters:
    ///   - kind: what went wrong.
    ///   - status: the HTTP status that answers it (server side) or that arrived (client side).
    ///   - detail: details for logs.
    public init(_ kind: Kind, status: Int, _ detail: String = "") {
        self.kind = kind
        self.status = status
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? "\(kind)" : "\(kind): \(detail)" }
}
