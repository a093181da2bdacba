import Testing

@testable import Media

@Suite("G.711: a stream's coders cost no allocation")
struct G711FootprintTests {
    @Test func codersFitAnExistentialsInlineBuffer() {
        // An `any AudioEncoder`/`any AudioDecoder` stores a value of up to three words inline.
        #expect(MemoryLayout<G711Encoder>.size <= 3 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<G711Decoder>.size <= 3 * MemoryLayout<Int>.size)
    }

    @Test func aLongLossStaysSilentAndTheNextPacketFadesInFromSilence() throws {
        var decoder = G711Decoder(law: .muLaw, fadeOutFrames: 4)
        let loud = [UInt8](repeating: 0x80, count: 160)
        let first = try decoder.decode(loud[...])
        for _ in 0..<70_000 { _ = decoder.concealLoss(next: nil) }
        #expect(decoder.concealLoss(next: nil).allSatisfy { $0 == 0 })
        let resumed = try decoder.decode(loud[...])
        #expect(resumed[0] == 0 && resumed[159] != 0 && abs(Int(resumed[159])) <= abs(Int(first[159])))
        #expect(decoder.fadeOutFrames == 4 && decoder.format == .narrowband)
    }
}
