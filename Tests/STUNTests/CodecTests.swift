import Testing

@testable import STUN

@Suite("STUN codec")
struct CodecTests {
    let id = STUNTransactionID(high: 0xA1B2_C3D4, low: 0x0011_2233_4455_6677)

    @Test func crc32CheckValue() {
        // The standard check value of CRC-32 (ISO-HDLC) over the ASCII digits "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test(arguments: STUNMessageClass.allCases)
    func messageTypeBitsRoundTrip(messageClass: STUNMessageClass) {
        for method in [STUNMethod.binding, .allocate, .channelBind, STUNMethod(rawValue: 0xFFF)] {
            let type = STUNMessageType.encode(method: method, messageClass: messageClass)
            #expect(type & 0xC000 == 0)
            let (m, c) = STUNMessageType.decode(type)
            #expect(m == method)
            #expect(c == messageClass)
        }
        // RFC 8489 §5: a Binding success response is 0x0101, an error response 0x0111.
        #expect(STUNMessageType.encode(method: .binding, messageClass: .successResponse) == 0x0101)
        #expect(STUNMessageType.encode(method: .binding, messageClass: .errorResponse) == 0x0111)
        #expect(STUNMessageType.encode(method: .binding, messageClass: .indication) == 0x0011)
    }

    @Test func unknownComprehensionRequiredAttributesAreReportedForA420() throws {
        let message = STUNMessage(
            .request, .binding, transactionID: id,
            attributes: [
                STUNAttribute(type: STUNAttributeType(rawValue: 0x7F01), value: [1, 2, 3]),
                STUNAttribute(type: STUNAttributeType(rawValue: 0xC001), value: [9]),
                STUNAttribute(type: STUNAttributeType(rawValue: 0x7F01), value: [4]),
                STUNAttribute(type: STUNAttributeType(rawValue: 0x0031), value: []),
            ])
        let received = try STUNReceivedMessage(decoding: message.encoded(fingerprint: true))
        #expect(received.unknownRequiredAttributes.map(\.rawValue) == [0x7F01, 0x0031])
        // Unknown comprehension-optional attributes are kept raw; all are, in order.
        #expect(received.message.attributes.dropLast() == message.attributes[...])
        #expect(received.message[STUNAttributeType(rawValue: 0xC001)] == [9])

        let answer = STUNMessage(
            .errorResponse, .binding, transactionID: id,
            attributes: [
                .errorCode(.unknownAttribute, reason: "Unknown Attribute"),
                .unknownAttributes(received.unknownRequiredAttributes),
            ])
        let decoded = try STUNReceivedMessage(decoding: answer.encoded()).message
        #expect(decoded.errorCode?.code == .unknownAttribute)
        #expect(decoded.errorCode?.reason == "Unknown Attribute")
        #expect(decoded.unknownAttributes == received.unknownRequiredAttributes)
    }

    @Test func attributesAfterMessageIntegrityAreIgnored() throws {
        let key = STUNKey.shortTerm(password: "pw")
        let signed = STUNMessage(.request, .binding, transactionID: id, attributes: [.username("a:b")])
            .encoded(integrity: STUNIntegrity(key: key))
        // Append SOFTWARE after MESSAGE-INTEGRITY and fix the header's length: it is dropped, integrity holds.
        var bytes = signed + [0x80, 0x22, 0x00, 0x01, 0x78, 0, 0, 0]
        bytes[3] &+= 8
        let received = try STUNReceivedMessage(decoding: bytes)
        #expect(received.message.software == nil)
        #expect(received.message.username == "a:b")
        #expect(received.isAuthentic(with: key))
    }

    @Test func bothIntegrityAttributesVerifyAndSHA256IsPreferred() throws {
        let key = STUNKey.shortTerm(password: "pw")
        let message = STUNMessage(.request, .binding, transactionID: id, attributes: [.username("a:b")])
        let bytes = message.encoded(integrity: STUNIntegrity(key: key, sha1: true, sha256: true), fingerprint: true)
        let received = try STUNReceivedMessage(decoding: bytes)
        #expect(received.checkMessageIntegrity(with: key) == true)
        #expect(received.checkMessageIntegritySHA256(with: key) == true)
        #expect(received.isAuthentic(with: key))
        #expect(
            received.message.attributes.map(\.type) == [
                .username, .messageIntegrity, .messageIntegritySHA256, .fingerprint,
            ])
        // A tampered byte breaks both (and the fingerprint, so the decoder refuses it first).
        var tampered = bytes
        tampered[24] ^= 1
        #expect(throws: STUNDecodingError.self) { try STUNReceivedMessage(decoding: tampered) }
    }

    @Test func typedAttributesRoundTrip() throws {
        let v6 = STUNTransportAddress(address: .v6(high: 0x2001_0DB8_0000_0000, low: 1), port: 3478)
        let message = STUNMessage(
            .successResponse, .binding, transactionID: id,
            attributes: [
                .xorMappedAddress(v6, transactionID: id), .mappedAddress(v6), .software("sb"), .realm("r"),
                .nonce("n"), .passwordAlgorithm(.sha256), .passwordAlgorithms([.sha256, .md5]), .priority(42),
                .useCandidate,
                .iceControlling(tieBreaker: 0xFEED),
            ])
        let decoded = try STUNReceivedMessage(decoding: message.encoded()).message
        #expect(decoded == message)
        #expect(decoded.xorMappedAddress == v6)
        #expect(decoded.mappedAddress == v6)
        #expect(v6.description == "[2001:db8::1]:3478")
        #expect(decoded.passwordAlgorithm == .sha256)
        #expect(decoded.passwordAlgorithms == [.sha256, .md5])
        #expect(decoded.priority == 42)
        #expect(decoded.hasUseCandidate)
        #expect(decoded.iceControlling == 0xFEED)
        #expect(decoded.iceControlled == nil)
    }

    @Test func ipv6TextFollowsRFC5952() {
        #expect(STUNIPAddress.v6(high: 0, low: 1).description == "::1")
        #expect(STUNIPAddress.v6(high: 0, low: 0).description == "::")
        #expect(
            STUNIPAddress.v6(high: 0x2001_0DB8_0000_0001, low: 0x0000_0000_0001_0000).description
                == "2001:db8:0:1::1:0")
        #expect(STUNIPAddress(bytes: [1, 2, 3]) == nil)
        #expect(STUNIPAddress(bytes: [10, 0, 0, 1])?.description == "10.0.0.1")
    }

    @Test func comprehensionRanges() {
        #expect(STUNAttributeType.xorMappedAddress.isComprehensionRequired)
        #expect(!STUNAttributeType.software.isComprehensionRequired)
        #expect(STUNAttributeType(rawValue: 0x7F01).description == "0x7f01")
        #expect(STUNAttributeType.fingerprint.description == "FINGERPRINT")
        #expect(STUNAttributeType.priority.isUnderstood)
        #expect(!STUNAttributeType(rawValue: 0x7F01).isUnderstood)
    }
}
