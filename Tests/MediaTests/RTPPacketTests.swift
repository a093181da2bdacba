import Media
import Testing

@Suite("RTP packets (RFC 3550 §5.1)")
struct RTPPacketTests {
    @Test func decodesAFixedHeader() throws {
        // V=2, PT=0 (PCMU), seq 0x1234, ts 0xDECAFBAD, SSRC 0xCAFEBABE, 4 payload bytes.
        let bytes = hex("80 00 12 34 DE CA FB AD CA FE BA BE 01 02 03 04")
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.payloadType == 0)
        #expect(!packet.marker)
        #expect(packet.sequenceNumber == 0x1234)
        #expect(packet.timestamp == 0xDECA_FBAD)
        #expect(packet.ssrc == 0xCAFE_BABE)
        #expect(packet.csrcs.isEmpty)
        #expect(packet.headerExtension == nil)
        #expect(Array(packet.payload) == [1, 2, 3, 4])
        #expect(packet.paddingLength == 0)
        #expect(try packet.serialized() == bytes)
    }

    @Test func roundTripsEveryField() throws {
        let extensionData: [UInt8] = [0x10, 0xAA, 0, 0, 0x21, 0xBB, 0xCC, 0]
        let packet = RTPPacket(
            payloadType: 111, sequenceNumber: 65535, timestamp: 0xFFFF_FFFF, ssrc: 7, marker: true,
            csrcs: [1, 2, 0xFFFF_FFFF], headerExtension: RTPHeaderExtension(profile: 0xBEDE, data: extensionData[...]),
            payload: [9, 8, 7][...], paddingLength: 5)
        let bytes = try packet.serialized()
        #expect(bytes.count == 12 + 12 + 4 + 8 + 3 + 5)
        #expect(bytes[0] == 0x80 | 0x20 | 0x10 | 3)
        #expect(bytes[1] == 0x80 | 111)
        #expect(bytes.last == 5)
        let decoded = try RTPPacket(parsing: bytes)
        #expect(decoded.marker)
        #expect(decoded.payloadType == 111)
        #expect(decoded.csrcs == [1, 2, 0xFFFF_FFFF])
        #expect(decoded.headerExtension?.profile == 0xBEDE)
        #expect(decoded.headerExtension?.lengthInWords == 2)
        #expect(decoded.headerExtension.map { Array($0.data) } == extensionData)
        #expect(Array(decoded.payload) == [9, 8, 7])
        #expect(decoded.paddingLength == 5)
        #expect(decoded.headerLength == 36)
        #expect(try decoded.serialized() == bytes)
    }

    @Test func payloadIsASliceOfTheReceivedBytes() throws {
        let bytes = hex("80 08 00 01 00 00 00 A0 00 00 00 01") + Array(repeating: 0xD5, count: 160)
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.payload.startIndex == 12)
        #expect(packet.payload.count == 160)
        // A slice of a larger buffer decodes with its own indices.
        let padded = [0xFF, 0xFF] + bytes
        let sliced = try RTPPacket(parsing: padded[2...])
        #expect(sliced.payload.count == 160)
        #expect(sliced.sequenceNumber == 1)
    }

    @Test(
        "malformed packets are typed errors",
        arguments: [
            ("", RTPError.Code.truncated),
            ("80 00 00 01 00 00 00 00 00 00 00", .truncated),
            ("40 00 00 01 00 00 00 00 00 00 00 01", .unsupportedVersion),
            ("C0 00 00 01 00 00 00 00 00 00 00 01", .unsupportedVersion),
            ("82 00 00 01 00 00 00 00 00 00 00 01 00 00 00 01", .truncated),
            ("90 00 00 01 00 00 00 00 00 00 00 01 BE DE", .truncated),
            ("90 00 00 01 00 00 00 00 00 00 00 01 BE DE 00 02 00 00 00 00", .badHeaderExtension),
            ("A0 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00", .badPadding),
            ("A0 00 00 01 00 00 00 00 00 00 00 01 00 00 00 05", .badPadding),
        ])
    func malformed(_ text: String, _ code: RTPError.Code) {
        #expect {
            _ = try RTPPacket(parsing: hex(text))
        } throws: { error in
            (error as? RTPError)?.code == code
        }
    }

    @Test func paddingMayCoverTheWholePayload() throws {
        let packet = try RTPPacket(parsing: hex("A0 00 00 01 00 00 00 00 00 00 00 01 00 00 00 04"))
        #expect(packet.payload.isEmpty)
        #expect(packet.paddingLength == 4)
    }

    @Test func encodingRejectsValuesTheHeaderCannotHold() {
        var packet = RTPPacket(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0, payload: [])
        #expect(throws: RTPError.self) { try packet.serialized() }
        packet.payloadType = 0
        packet.csrcs = Array(repeating: 1, count: 16)
        #expect(throws: RTPError.self) { try packet.serialized() }
        packet.csrcs = []
        packet.headerExtension = RTPHeaderExtension(profile: 1, data: [1, 2, 3][...])
        #expect(throws: RTPError.self) { try packet.serialized() }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 1)
        var decoded = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = 0x80 | bytes[0] & 0x3F }
            if let packet = try? RTPPacket(parsing: bytes) {
                decoded += 1
                #expect(packet.encodedLength == bytes.count)
            }
        }
        #expect(decoded > 0)
    }

    @Test(
        "rtcp-mux demultiplexing (RFC 5761 §4, RFC 7983)",
        arguments: [
            ("80 00", MediaPacketKind.rtp), ("80 E0", .rtp), ("80 BF", .rtp), ("80 C0", .rtcp), ("81 C8", .rtcp),
            ("81 C9", .rtcp), ("80 DF", .rtcp), ("00 01", .stun), ("16 FE", .dtls), ("FF 00", .unknown),
            ("80", .unknown), ("", .unknown),
        ])
    func demultiplexing(_ text: String, _ kind: MediaPacketKind) {
        #expect(MediaPacketKind(classifying: hex(text)) == kind)
    }
}
