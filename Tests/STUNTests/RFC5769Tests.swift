import STUN
import Testing

/// The four messages of RFC 5769 §2: each decodes, its FINGERPRINT and MESSAGE-INTEGRITY verify, its values
/// are the ones the RFC states, and it re-encodes to the RFC's bytes wherever those bytes use zero padding.
@Suite("RFC 5769 test vectors")
struct RFC5769Tests {
    let shortTermKey = STUNKey.shortTerm(password: Vectors.shortTermPassword)
    let transactionID = STUNTransactionID(bytes: Vectors.hex("b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"))

    @Test func sampleRequest() throws {
        let received = try STUNReceivedMessage(decoding: Vectors.sampleRequest)
        let message = received.message
        #expect(message.messageClass == .request)
        #expect(message.method == .binding)
        #expect(message.transactionID == transactionID)
        #expect(message.software == "STUN test client")
        #expect(message.priority == 0x6E00_01FF)
        #expect(message.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(message.username == "evtj:h6vY")
        #expect(received.hasFingerprint)
        #expect(received.unknownRequiredAttributes.isEmpty)
        #expect(received.checkMessageIntegrity(with: shortTermKey) == true)
        #expect(received.isAuthentic(with: shortTermKey))
        #expect(!received.isAuthentic(with: .shortTerm(password: "wrong")))
        #expect(received.checkMessageIntegritySHA256(with: shortTermKey) == nil)
    }

    @Test func sampleRequestReencodes() throws {
        let original = Vectors.sampleRequest
        let message = try STUNReceivedMessage(decoding: original).message
        let encoded = message.encoded(integrity: STUNIntegrity(key: shortTermKey), fingerprint: true)
        // The RFC pads USERNAME (bytes 73...75) with spaces; with zero padding the MESSAGE-INTEGRITY (80..<100)
        // and FINGERPRINT (104..<108) values change with it, and every other byte is the RFC's.
        #expect(encoded.count == original.count)
        let differing = Set(73..<76).union(80..<100).union(104..<108)
        for index in original.indices where !differing.contains(index) {
            #expect(encoded[index] == original[index], "byte \(index)")
        }
        #expect(Array(encoded[73..<76]) == [0, 0, 0])
        let again = try STUNReceivedMessage(decoding: encoded)
        #expect(again.isAuthentic(with: shortTermKey))
        #expect(again.hasFingerprint)
        #expect(again.message == message.withoutComputedAttributes.with(computedFrom: again.message))
    }

    @Test func ipv4Response() throws {
        let received = try STUNReceivedMessage(decoding: Vectors.ipv4Response)
        let message = received.message
        #expect(message.messageClass == .successResponse)
        #expect(message.method == .binding)
        #expect(message.transactionID == transactionID)
        #expect(message.software == "test vector")
        let expected = STUNTransportAddress(address: .v4(0xC000_0201), port: 32853)
        #expect(message.xorMappedAddress == expected)
        #expect(message.xorMappedAddress?.description == "192.0.2.1:32853")
        #expect(received.hasFingerprint)
        #expect(received.isAuthentic(with: shortTermKey))
        // Re-encoded with zero padding: the same attributes, verifying again.
        let encoded = message.encoded(integrity: STUNIntegrity(key: shortTermKey), fingerprint: true)
        #expect(encoded.count == Vectors.ipv4Response.count)
        let again = try STUNReceivedMessage(decoding: encoded)
        #expect(again.isAuthentic(with: shortTermKey))
        #expect(again.message.xorMappedAddress == expected)
        #expect(Array(encoded[24..<35]) == Array(Vectors.ipv4Response[24..<35]))
        #expect(Array(encoded[36..<48]) == Array(Vectors.ipv4Response[36..<48]))
    }

    @Test func ipv6Response() throws {
        let received = try STUNReceivedMessage(decoding: Vectors.ipv6Response)
        let message = received.message
        #expect(message.messageClass == .successResponse)
        let address = try #require(message.xorMappedAddress)
        #expect(address.port == 32853)
        #expect(address.address.bytes == Vectors.hex("20 01 0d b8 12 34 56 78 00 11 22 33 44 55 66 77"))
        #expect(address.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(received.hasFingerprint)
        #expect(received.isAuthentic(with: shortTermKey))
        // The XOR-MAPPED-ADDRESS attribute this module writes for that address is the RFC's, byte for byte.
        let attribute = STUNAttribute.xorMappedAddress(address, transactionID: message.transactionID)
        #expect(attribute.value == Array(Vectors.ipv6Response[40..<60]))
    }

    @Test func longTermRequest() throws {
        let received = try STUNReceivedMessage(decoding: Vectors.longTermRequest)
        let message = received.message
        #expect(message.username == Vectors.longTermUsername)
        #expect(message.nonce == "f//499k954d6OL34oL9FSTvy64sA")
        #expect(message.realm == "example.org")
        #expect(!received.hasFingerprint)
        let key = try #require(
            STUNKey.longTerm(
                username: Vectors.longTermUsername, realm: "example.org", password: Vectors.longTermPassword))
        #expect(received.isAuthentic(with: key))
        #expect(!received.isAuthentic(with: .shortTerm(password: Vectors.longTermPassword)))
        // Zero padding throughout, so the re-encoding is the RFC's message byte for byte.
        #expect(message.encoded(integrity: STUNIntegrity(key: key)) == Vectors.longTermRequest)
    }
}

extension STUNMessage {
    /// The message without the attributes the encoder computes.
    var withoutComputedAttributes: STUNMessage {
        var copy = self
        copy.attributes.removeAll { STUNAttributeType.computed.contains($0.type) }
        return copy
    }

    /// This message with the computed attributes of `other` appended, as the encoder appends them.
    func with(computedFrom other: STUNMessage) -> STUNMessage {
        var copy = self
        copy.attributes += other.attributes.filter { STUNAttributeType.computed.contains($0.type) }
        return copy
    }
}
