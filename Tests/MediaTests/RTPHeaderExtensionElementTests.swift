import Testing

@testable import Media

@Suite("RFC 8285 header extension elements")
struct RTPHeaderExtensionElementTests {
    /// A packet whose extension is `profile` with `elements`, padded to whole words.
    static func packet(profile: UInt16, _ elements: [UInt8]) throws -> RTPPacket {
        let padded = elements + [UInt8](repeating: 0, count: (4 - elements.count % 4) % 4)
        var bytes: [UInt8] = [0x90, 111, 0, 1, 0, 0, 0, 1, 0, 0, 0, 9]
        bytes += [UInt8(profile >> 8), UInt8(profile & 0xFF), 0, UInt8(padded.count / 4)] + padded + [0xAA, 0xBB]
        return try RTPPacket(parsing: bytes)
    }

    @Test func oneByteFormReadsMIDAndAudioLevel() throws {
        // id 1 audio level (1 byte: V + 42), padding, id 3 MID "a0" (2 bytes), id 5 something of 4 bytes.
        let packet = try Self.packet(profile: 0xBEDE, [0x10, 0xAA, 0x00, 0x31, 0x61, 0x30, 0x53, 1, 2, 3, 4])
        let ext = try #require(packet.headerExtension)
        #expect(ext.isOneByteForm && !ext.isTwoByteForm)
        #expect(try ext.elements().map(\.identifier) == [1, 3, 5])
        #expect(ext.audioLevel(identifier: 1) == RTPAudioLevel(voiceActivity: true, level: 42))
        #expect(ext.mid(identifier: 3) == "a0")
        #expect(ext.element(identifier: 5)?.data.count == 4)
        #expect(ext.element(identifier: 7) == nil)
        #expect(Array(packet.payload) == [0xAA, 0xBB])
    }

    @Test func twoByteFormReadsElementsOfAnyLength() throws {
        let mid = Array("audio-main".utf8)
        let packet = try Self.packet(
            profile: 0x1000, [0x01, 0x01, 0x05, 0x00, 0x00, 0x0C, UInt8(mid.count)] + mid + [0x20, 0x00])
        let ext = try #require(packet.headerExtension)
        #expect(ext.isTwoByteForm)
        #expect(try ext.elements().map(\.identifier) == [1, 12, 32])
        #expect(ext.audioLevel(identifier: 1) == RTPAudioLevel(voiceActivity: false, level: 5))
        #expect(ext.mid(identifier: 12) == "audio-main")
        #expect(ext.element(identifier: 32)?.data.isEmpty == true)
    }

    @Test func theOneByteFormIsBuiltPaddedAndReadsBack() throws {
        let elements: [(identifier: UInt8, data: [UInt8])] = [(3, Array("a0".utf8)), (1, [0xAA])]
        let built = try #require(RTPHeaderExtension(oneByteElements: elements))
        #expect(built.profile == 0xBEDE)
        #expect(Array(built.data) == [0x31, 0x61, 0x30, 0x10, 0xAA, 0, 0, 0])
        let packet = RTPPacket(
            payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, headerExtension: built, payload: [9])
        let bytes = try packet.serialized()
        let parsed = try RTPPacket(parsing: bytes)
        #expect(parsed.headerExtension?.mid(identifier: 3) == "a0")
        #expect(parsed.headerExtension?.element(identifier: 1)?.data.first == 0xAA)
        #expect(Array(parsed.payload) == [9])
    }

    @Test func theOneByteFormRefusesWhatItCannotCarry() {
        #expect(RTPHeaderExtension(oneByteElements: [(15, [1])]) == nil)
        #expect(RTPHeaderExtension(oneByteElements: [(0, [1])]) == nil)
        #expect(RTPHeaderExtension(oneByteElements: [(1, [])]) == nil)
        #expect(RTPHeaderExtension(oneByteElements: [(1, [UInt8](repeating: 7, count: 17))]) == nil)
        #expect(RTPHeaderExtension(oneByteElements: []) == nil)
    }

    @Test func identifierFifteenEndsTheOneByteWalk() throws {
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x10, 0x01, 0xF0, 0x20, 0x01, 0x02, 0x00, 0x00][...])
        #expect(try ext.elements().map(\.identifier) == [1])
    }

    /// Overruns are typed errors; other profiles have no elements; a MID that is not a token is refused.
    @Test func badExtensionsAreBoundedAndTyped() throws {
        let overrun = RTPHeaderExtension(profile: 0xBEDE, data: [0x1F, 0x01, 0x02, 0x03][...])
        #expect(throws: RTPError.self) { try overrun.elements() }
        #expect(overrun.element(identifier: 1) == nil)
        let twoByteOverrun = RTPHeaderExtension(profile: 0x1000, data: [0x01, 0xFF, 0x00, 0x00][...])
        #expect(throws: RTPError.self) { try twoByteOverrun.elements() }
        let cut = RTPHeaderExtension(profile: 0x1000, data: [0x00, 0x00, 0x00, 0x07][...])
        #expect(throws: RTPError.self) { try cut.elements() }
        let other = RTPHeaderExtension(profile: 0x1234, data: [0x10, 0x01, 0x00, 0x00][...])
        #expect(try other.elements().isEmpty)
        let notToken = RTPHeaderExtension(profile: 0xBEDE, data: [0x11, 0x20, 0x0A, 0x00][...])
        #expect(notToken.mid(identifier: 1) == nil)
        // Every byte pattern of one word walks without trapping.
        for value in stride(from: 0, through: 0xFFFF, by: 7) {
            let data: [UInt8] = [UInt8(value >> 8), UInt8(value & 0xFF), UInt8(value % 251), UInt8(value % 13)]
            for profile: UInt16 in [0xBEDE, 0x1000] {
                _ = try? RTPHeaderExtension(profile: profile, data: data[...]).elements()
            }
        }
    }
}
