public import STUN

/// An agent's username fragment and password (RFC 8445 §5.3, RFC 8839 §5.4): `a=ice-ufrag` and `a=ice-pwd`.
///
/// The password never appears in ``description`` or in a mirror (`dump`, debuggers).
public struct ICECredentials: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The username fragment: 4 to 256 ice-chars.
    public let ufrag: String
    /// The password: 22 to 256 ice-chars.
    public let password: String

    /// Checks both values against RFC 8839 §5.4.
    /// - Throws: ``ICESDPError`` with ``ICESDPError/Code/badUfrag`` or ``ICESDPError/Code/badPassword``.
    public init(ufrag: String, password: String) throws(ICESDPError) {
        guard ICEGrammar.isIceChars(Substring(ufrag), count: 4...256) else {
            throw ICESDPError(.badUfrag, "\(ufrag.utf8.count) bytes")
        }
        guard ICEGrammar.isIceChars(Substring(password), count: 22...256) else {
            throw ICESDPError(.badPassword, "\(password.utf8.count) bytes")
        }
        self.ufrag = ufrag
        self.password = password
    }

    /// Fresh credentials from `generator`: an 8-character ufrag (48 bits) and a 24-character password
    /// (144 bits), above the 24 and 128 bits of RFC 8445 §5.3. Pass a cryptographic generator outside tests.
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        func draw(_ count: Int) -> String {
            var bytes: [UInt8] = []
            var word: UInt64 = 0
            for index in 0..<count {
                if index % 10 == 0 { word = generator.next() }
                bytes.append(alphabet[Int(word & 63)])
                word >>= 6
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return ICECredentials(checkedUfrag: draw(8), password: draw(24))
    }

    private init(checkedUfrag: String, password: String) {
        self.ufrag = checkedUfrag
        self.password = password
    }

    /// `ufrag <ufrag>, pwd <redacted>`.
    public var description: String { "ufrag \(ufrag), pwd <redacted>" }

    public var customMirror: Mirror { Mirror(self, children: ["ufrag": ufrag, "password": "<redacted>"]) }
}

/// An `ice-options` tag (RFC 8839 §5.6); the IANA registry grows, so this is a struct.
public struct ICEOption: Hashable, Sendable, CustomStringConvertible {
    /// The tag.
    public let name: String

    /// A tag; `nil` unless it is 1 to 256 ice-chars.
    public init?(name: String) {
        guard ICEGrammar.isIceChars(Substring(name), count: 1...256) else { return nil }
        self.name = name
    }

    private init(known: String) { self.name = known }

    /// `ice2`: the agent implements RFC 8445 (not only RFC 5245).
    public static let ice2 = ICEOption(known: "ice2")
    /// `trickle`: the agent supports Trickle ICE (RFC 8838).
    public static let trickle = ICEOption(known: "trickle")

    public var description: String { name }
}

/// An entry of `a=remote-candidates` (RFC 8839 §5.2): the remote candidate the controlling agent selected for
/// a component.
public struct ICERemoteCandidate: Hashable, Sendable {
    /// The component ID.
    public var component: Int
    /// The remote candidate's transport address.
    public var address: STUNTransportAddress

    /// - Parameters:
    ///   - component: the component ID.
    ///   - address: the remote candidate's transport address.
    public init(component: Int, address: STUNTransportAddress) {
        self.component = component
        self.address = address
    }
}
