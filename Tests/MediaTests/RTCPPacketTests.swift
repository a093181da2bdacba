import Media
import Testing

@Suite("RTCP compound packets (RFC 3550 §6.4-§6.6, A.2)")
struct RTCPPacketTests {
    @Test func decodesAReceiverReportWithCNAME() throws {
        let bytes = hex("80 C9 00 01 11 22 33 44  81 CA 00 03 11 22 33 44 01 04 61 62 63 64 00 00")
        let compound = try RTCPCompoundPacket(parsing: bytes)
        #expect(
            compound.packets == [
                .receiverReport(RTCPReceiverReport(ssrc: 0x1122_3344, reportBlocks: [])),
                .sourceDescription(.cname("abcd", ssrc: 0x1122_3344)),
            ])
        #expect(try compound.serialized() == bytes)
    }

    @Test func roundTripsSenderReportBlocksSDESAndBYE() throws {
        let block = RTCPReportBlock(
            ssrc: 0xCAFE_BABE, fractionLost: 64, cumulativeLost: -3, extendedHighestSequenceNumber: 0x1_0010,
            interarrivalJitter: 77, lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x8000)
        let info = RTCPSenderInfo(
            ntpTimestamp: NTPTimestamp(seconds: 3_900_000_000, fraction: 0x8000_0000), rtpTimestamp: 160_000,
            packetCount: 500, octetCount: 80_000)
        let compound = RTCPCompoundPacket(packets: [
            .senderReport(RTCPSenderReport(ssrc: 1, senderInfo: info, reportBlocks: [block])),
            .sourceDescription(
                RTCPSourceDescription(chunks: [
                    .init(ssrc: 1, items: [.init(type: .cname, text: "sb@192.0.2.1"), .init(type: .tool, text: "sb")])
                ])),
            .goodbye(RTCPGoodbye(sources: [1], reason: "bye now")),
            .other(RTCPUnknownPacket(packetType: 205, count: 1, body: [0, 0, 0, 1, 0, 0, 0, 2])),
        ])
        let bytes = try compound.serialized()
        #expect(bytes.count % 4 == 0)
        #expect(bytes.count == 52 + 28 + 16 + 12)
        let decoded = try RTCPCompoundPacket(parsing: bytes)
        #expect(decoded == compound)
        guard case .sourceDescription(let sdes) = decoded.packets[1], case .goodbye(let bye) = decoded.packets[2] else {
            Issue.record("unexpected packets \(decoded.packets)")
            return
        }
        #expect(sdes.chunks.first?.cname == "sb@192.0.2.1")
        #expect(bye.reasonText == "bye now")
        #expect(decoded.packets.map(\.packetType) == [200, 202, 203, 205])
    }

    @Test func cumulativeLossIsSigned24Bits() throws {
        for lost: Int32 in [0, 1, -1, 0x7F_FFFF, -0x80_0000] {
            let block = RTCPReportBlock(
                ssrc: 1, fractionLost: 0, cumulativeLost: lost, extendedHighestSequenceNumber: 0,
                interarrivalJitter: 0, lastSenderReport: 0, delaySinceLastSenderReport: 0)
            let bytes = try RTCPCompoundPacket(packets: [.receiverReport(.init(ssrc: 2, reportBlocks: [block]))])
                .serialized()
            guard case .receiverReport(let report) = try RTCPCompoundPacket(parsing: bytes).packets.first else {
                Issue.record("not an RR")
                return
            }
            #expect(report.reportBlocks.first?.cumulativeLost == lost)
        }
    }

    @Test func paddingOnTheLastPacketIsStripped() throws {
        // RR + BYE whose last 4 bytes are padding (P bit on the BYE).
        let bytes = hex("80 C9 00 01 00 00 00 01  A1 CB 00 02 00 00 00 01 00 00 00 04")
        let compound = try RTCPCompoundPacket(parsing: bytes)
        #expect(compound.packets.last == .goodbye(RTCPGoodbye(sources: [1])))
    }

    @Test(
        "malformed compounds are typed errors",
        arguments: [
            ("", RTPError.Code.truncated),
            ("80 C9 00", .truncated),
            ("40 C9 00 01 00 00 00 01", .unsupportedVersion),
            ("81 CA 00 01 00 00 00 01", .notCompound),
            ("80 C9 00 02 00 00 00 01", .badLength),
            ("A0 C9 00 01 00 00 00 01  81 CB 00 01 00 00 00 01", .misplacedPadding),
            ("A0 C9 00 01 00 00 00 08", .badPadding),
            ("81 C9 00 01 00 00 00 01", .badLength),
            ("80 C8 00 01 00 00 00 01", .badLength),
            ("80 C9 00 01 00 00 00 01  81 CA 00 02 00 00 00 01 01 08 61 62", .badSourceDescription),
            ("80 C9 00 01 00 00 00 01  81 CA 00 01 00 00 00 01", .badSourceDescription),
            ("80 C9 00 01 00 00 00 01  81 CB 00 02 00 00 00 01 09 61 62 63", .badLength),
            ("80 C9 00 01 00 00 00 01  82 CB 00 01 00 00 00 01", .badLength),
            ("80 C9 00 01 00 00 00 01  80 CB", .truncated),
        ])
    func malformed(_ text: String, _ code: RTPError.Code) {
        #expect {
            _ = try RTCPCompoundPacket(parsing: hex(text))
        } throws: { error in
            (error as? RTPError)?.code == code
        }
    }

    @Test func reducedSizeRTCPIsAcceptedWhenAllowed() throws {
        let bytes = hex("81 CA 00 02 00 00 00 01 01 01 61 00")
        let compound = try RTCPCompoundPacket(parsing: bytes, allowsReducedSize: true)
        #expect(compound.packets == [.sourceDescription(.cname("a", ssrc: 1))])
    }

    @Test func encodingRejectsWhatTheFormatCannotHold() {
        let blocks = Array(
            repeating: RTCPReportBlock(
                ssrc: 1, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: 0, interarrivalJitter: 0,
                lastSenderReport: 0, delaySinceLastSenderReport: 0), count: 32)
        #expect(throws: RTPError.self) {
            try RTCPCompoundPacket(packets: [.receiverReport(.init(ssrc: 1, reportBlocks: blocks))]).serialized()
        }
        let long = String(repeating: "x", count: 256)
        #expect(throws: RTPError.self) {
            try RTCPCompoundPacket(packets: [.sourceDescription(.cname(long, ssrc: 1))]).serialized()
        }
        #expect(throws: RTPError.self) {
            try RTCPCompoundPacket(packets: [.goodbye(RTCPGoodbye(sources: [1], reason: long))]).serialized()
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SeededGenerator(seed: 3)
        var decoded = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<80, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 4 {
                bytes[0] = 0x80 | bytes[0] & 0x3F
                bytes[1] = UInt8.random(in: 200...204, using: &generator)
                bytes[2] = 0
                bytes[3] = UInt8(min(count / 4 - 1, Int.random(in: 0...6, using: &generator)))
            }
            if (try? RTCPCompoundPacket(parsing: bytes, allowsReducedSize: true)) != nil { decoded += 1 }
        }
        #expect(decoded > 0)
    }
}
