import Testing

@testable import STUN

/// One malformed input per ``STUNDecodingError/Code``: each is refused with the fault it has, without trapping.
@Suite("STUN decoding errors")
struct DecodingErrorTests {
    static let id = STUNTransactionID(high: 0x0102_0304, low: 0x0506_0708_090A_0B0C)

    /// A Binding request with these attributes, padded with zeros; the header's length is the real one
    /// unless `length` says otherwise.
    static func raw(_ attributes: [(UInt16, [UInt8])], length: Int? = nil) -> [UInt8] {
        var out: [UInt8] = [0x00, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42] + id.bytes
        for (type, value) in attributes {
            out += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
            out += value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        let total = length ?? (out.count - 20)
        out[2] = UInt8(total >> 8)
        out[3] = UInt8(total & 0xFF)
        return out
    }

    static func code(of bytes: [UInt8], limits: STUNDecodingLimits = STUNDecodingLimits()) -> STUNDecodingError.Code? {
        do {
            _ = try STUNReceivedMessage(decoding: bytes, limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func tooShort() {
        #expect(Self.code(of: []) == .tooShort)
        #expect(Self.code(of: Array(Self.raw([]).prefix(19))) == .tooShort)
    }

    @Test func notSTUN() {
        var bytes = Self.raw([])
        bytes[0] = 0x80  // an RTP version-2 first byte
        #expect(Self.code(of: bytes) == .notSTUN)
    }

    @Test func badMagicCookie() {
        var bytes = Self.raw([])
        bytes[4] = 0x22
        #expect(Self.code(of: bytes) == .badMagicCookie)
    }

    @Test func lengthNotMultipleOf4() {
        #expect(Self.code(of: Self.raw([(0x8022, [0x61])], length: 5)) == .lengthNotMultipleOf4)
    }

    @Test func lengthMismatch() {
        let bytes = Self.raw([(0x8022, [0x61])])
        #expect(Self.code(of: Array(bytes.dropLast(4))) == .lengthMismatch)
        #expect(Self.code(of: bytes + [0, 0, 0, 0]) == .lengthMismatch)
    }

    @Test func tooLarge() {
        let bytes = Self.raw([(0x8022, [UInt8](repeating: 0x61, count: 300))])
        #expect(Self.code(of: bytes, limits: STUNDecodingLimits(maximumMessageSize: 200)) == .tooLarge)
        #expect(Self.code(of: bytes) == nil)
    }

    @Test func attributeOverrun() {
        var bytes = Self.raw([(0x8022, [0x61, 0x62, 0x63, 0x64])])
        bytes[23] = 100  // SOFTWARE claims 100 bytes; 4 follow
        #expect(Self.code(of: bytes) == .attributeOverrun)
    }

    @Test func tooManyAttributes() {
        let bytes = Self.raw([(0x8022, [0x61]), (0x8022, [0x62]), (0x8022, [0x63])])
        #expect(Self.code(of: bytes, limits: STUNDecodingLimits(maximumAttributes: 2)) == .tooManyAttributes)
        #expect(Self.code(of: bytes, limits: STUNDecodingLimits(maximumAttributes: 3)) == nil)
    }

    @Test func badFingerprint() {
        var bytes = Vectors.sampleRequest
        bytes[bytes.count - 1] ^= 0x01
        #expect(Self.code(of: bytes) == .badFingerprint)
        var body = Vectors.sampleRequest
        body[30] ^= 0x01  // a SOFTWARE byte: the CRC no longer matches
        #expect(Self.code(of: body) == .badFingerprint)
    }

    @Test func fingerprintNotLast() {
        // FINGERPRINT computed over the message with the final length, then one more attribute.
        var bytes = Self.raw([(0x8028, [0, 0, 0, 0]), (0x8022, [0x61])])
        let crc = Fingerprint.value(of: bytes[0..<20])
        bytes[24...27] = [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        #expect(Self.code(of: bytes) == .fingerprintNotLast)
    }

    @Test(
        arguments: [
            (0x0020, [0, 1, 0, 1, 1, 2, 3]),  // XOR-MAPPED-ADDRESS, IPv4 with 3 address bytes
            (0x0001, [0, 3, 0, 1, 1, 2, 3, 4]),  // MAPPED-ADDRESS, family 3
            (0x0008, [UInt8](repeating: 0, count: 19)),  // MESSAGE-INTEGRITY of 19 bytes
            (0x001C, [UInt8](repeating: 0, count: 12)),  // MESSAGE-INTEGRITY-SHA256 shorter than 16
            (0x0009, [0, 0, 7, 0]),  // ERROR-CODE class 7
            (0x0009, [0, 0, 4, 100]),  // ERROR-CODE number 100
            (0x000A, [0, 1, 0]),  // UNKNOWN-ATTRIBUTES of odd length
            (0x0024, [1, 2]),  // PRIORITY of 2 bytes
            (0x8028, [1, 2]),  // FINGERPRINT of 2 bytes
            (0x001D, [0, 2, 0, 8]),  // PASSWORD-ALGORITHM whose parameters overrun
        ] as [(UInt16, [UInt8])])
    func invalidAttribute(type: UInt16, value: [UInt8]) {
        #expect(Self.code(of: Self.raw([(type, value)])) == .invalidAttribute)
    }

    @Test func everyCodeHasATest() {
        let tested: [STUNDecodingError.Code] = [
            .tooShort, .notSTUN, .badMagicCookie, .lengthNotMultipleOf4, .lengthMismatch, .tooLarge,
            .attributeOverrun, .tooManyAttributes, .badFingerprint, .fingerprintNotLast, .invalidAttribute,
        ]
        #expect(Set(tested).count == 11)
        #expect(tested.allSatisfy { !$0.description.isEmpty })
    }
}
