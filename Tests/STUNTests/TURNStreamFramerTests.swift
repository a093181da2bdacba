import STUN
import Testing

/// Splitting a TCP or TLS stream into STUN messages and ChannelData (RFC 8656 §12.5).
@Suite("TURN stream framer")
struct TURNStreamFramerTests {
    static let id = STUNTransactionID(high: 1, low: 2)
    static let stun = STUNMessage(.successResponse, .refresh, transactionID: id, attributes: [.lifetime(seconds: 600)])
        .encoded(fingerprint: true)
    static let channelData = TURNChannelData(channel: .first, payload: Array(1...7))
    static let stream = stun + channelData.encoded(isStream: true) + stun
    static let expected: [TURNStreamFrame] = [.stun(stun), .channelData(channelData), .stun(stun)]

    static func drain(_ framer: inout TURNStreamFramer) throws -> [TURNStreamFrame] {
        var frames: [TURNStreamFrame] = []
        while let frame = try framer.nextFrame() { frames.append(frame) }
        return frames
    }

    @Test func mergedReadsGiveEveryFrame() throws {
        var framer = TURNStreamFramer()
        try framer.append(Self.stream)
        #expect(try Self.drain(&framer) == Self.expected)
        #expect(framer.bufferedCount == 0)
    }

    @Test func splitReadsNeverYieldHalfAFrame() throws {
        for cut in 1..<Self.stream.count {
            var framer = TURNStreamFramer()
            try framer.append(Self.stream[..<cut])
            var frames = try Self.drain(&framer)
            // Only frames wholly inside the first piece come out of it.
            var whole = 0
            for (end, count) in [(Self.stun.count, 1), (Self.stun.count + 12, 2), (Self.stream.count, 3)]
            where cut >= end {
                whole = count
            }
            #expect(frames.count == whole, "cut at \(cut)")
            try framer.append(Self.stream[cut...])
            frames += try Self.drain(&framer)
            #expect(frames == Self.expected, "cut at \(cut)")
        }
    }

    @Test func byteAtATime() throws {
        var framer = TURNStreamFramer()
        var frames: [TURNStreamFrame] = []
        for byte in Self.stream {
            try framer.append([byte])
            frames += try Self.drain(&framer)
        }
        #expect(frames == Self.expected)
    }

    @Test(arguments: [
        ([UInt8]([0x80, 0, 0, 0]), TURNFramingError.Code.unknownFrame),
        ([0xC0, 0, 0, 0], .unknownFrame), ([0x50, 0, 0, 4], .channelOutOfRange),
        ([0x00, 0x01, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF], .badMagicCookie),
    ])
    func garbageStopsTheStreamForGood(_ bytes: [UInt8], _ code: TURNFramingError.Code) throws {
        var framer = TURNStreamFramer()
        try framer.append(bytes)
        for _ in 0..<2 {
            do {
                _ = try framer.nextFrame()
                Issue.record("framed \(bytes)")
            } catch {
                #expect(error.code == code)
            }
        }
        #expect(throws: TURNFramingError.self) { try framer.append(Self.stun) }
    }

    @Test func framesAndTheBufferAreBounded() throws {
        var small = TURNStreamFramer(maximumFrameSize: 64)
        try small.append([0x40, 0x00, 0x00, 0x80])
        do {
            _ = try small.nextFrame()
            Issue.record("framed a 132-byte frame with a 64-byte limit")
        } catch {
            #expect(error.code == .frameTooLarge)
        }
        var tight = TURNStreamFramer(maximumFrameSize: 64, maximumBuffered: 100)
        try tight.append([UInt8](repeating: 0, count: 60))
        do {
            try tight.append([UInt8](repeating: 0, count: 41))
            Issue.record("buffered 101 bytes with a 100-byte limit")
        } catch {
            #expect(error.code == .bufferFull)
        }
    }
}
