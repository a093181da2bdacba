import Testing

@testable import Media
@testable import SDP

/// An RTP packet with `csrcCount` CSRCs and, when `extensionWords` is given, an RFC 8285 one-byte-header
/// extension block of that many words.
func rtpPacket(
    sequence: UInt16, timestamp: UInt32, ssrc: UInt32, csrcCount: Int, extensionWords: Int?, payloadLength: Int
) -> [UInt8] {
    func word(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    let first = 0x80 | UInt8(csrcCount & 0x0F) | (extensionWords == nil ? 0 : 0x10)
    var bytes: [UInt8] = [first, 111, UInt8(sequence >> 8), UInt8(truncatingIfNeeded: sequence)]
    bytes += word(timestamp) + word(ssrc)
    for i in 0..<csrcCount { bytes += word(0xC5C0_0000 + UInt32(i)) }
    if let extensionWords {
        bytes += [0xBE, 0xDE, 0, UInt8(extensionWords)]
        bytes += (0..<(4 * extensionWords)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ Int(sequence)) }
    }
    return bytes + (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(sequence)) }
}

@Suite("AEAD_AES_128_GCM against libsrtp2")
struct SRTPGCMCrossCheckTests {
    /// 500 packets from sequence number 65,200 (the ROC goes 0 -> 1) with 0...15 CSRCs, header extensions of
    /// 0...3 words or none, payloads of 0...1,199 bytes, several SSRCs, delivered out of order; then replays and
    /// tampering. 80 SRTCP packets, encrypted and not.
    @Test(arguments: SRTPPairing.allCases)
    func crossCheck(_ pairing: SRTPPairing) throws {
        var generator = SeededGenerator(seed: 7714)
        let key = (0..<28).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let (sender, receiver) = try pairing.make(suite: .aeadAES128GCM, key: key)
        var plain: [[UInt8]] = []
        var wire: [[UInt8]] = []
        for i in 0..<500 {
            let packet = rtpPacket(
                sequence: UInt16(truncatingIfNeeded: 65_200 + i), timestamp: UInt32(960 * i),
                ssrc: 0xA000_0000 + UInt32(i % 3), csrcCount: i % 16, extensionWords: i % 5 == 4 ? nil : i % 4,
                payloadLength: (i * 97) % 1200)
            var protected = packet
            try sender.protect(&protected)
            #expect(protected.count == packet.count + 16)
            plain.append(packet)
            wire.append(protected)
        }
        var order = Array(wire.indices)
        for i in stride(from: 0, to: order.count - 1, by: 2) { order.swapAt(i, i + 1) }
        for i in stride(from: 60, to: order.count - 30, by: 60) { order.insert(order.remove(at: i), at: i + 30) }
        for i in order {
            var packet = wire[i]
            try receiver.unprotect(&packet)
            #expect(packet == plain[i], "packet \(i)")
        }
        #expect(receiver.rtpStatistics.packets == 500)
        for i in [499, 420, 3] {
            var replay = wire[i]
            #expect { try receiver.unprotect(&replay) } throws: { ($0 as? SRTPError)?.code == .replayed }
        }
        var fresh = rtpPacket(
            sequence: 1_000, timestamp: 1, ssrc: 0xA000_0000, csrcCount: 2, extensionWords: 1, payloadLength: 160)
        let freshPlain = fresh
        try sender.protect(&fresh)
        for position in [0, 1, 8, 13, 30, 100, fresh.count - 1] {
            var tampered = fresh
            tampered[position] ^= 0x08
            #expect { try receiver.unprotect(&tampered) } throws: {
                let code = ($0 as? SRTPError)?.code
                return code == .authenticationFailed || code == .malformedPacket
            }
        }
        try receiver.unprotect(&fresh)
        #expect(fresh == freshPlain)
        try crossCheckSRTCP(sender, receiver)
    }

    private func crossCheckSRTCP(_ sender: any SRTPEndpoint, _ receiver: any SRTPEndpoint) throws {
        var reports: [[UInt8]] = []
        var protectedReports: [[UInt8]] = []
        for i in 0..<80 {
            let report = rtcpPacket(ssrc: 0xA000_0001, serial: i)
            var protected = report
            try sender.protectRTCP(&protected)
            #expect(protected.count == report.count + 20)
            reports.append(report)
            protectedReports.append(protected)
        }
        for i in reports.indices.reversed() {
            var packet = protectedReports[i]
            try receiver.unprotectRTCP(&packet)
            #expect(packet == reports[i], "report \(i)")
        }
        var replay = protectedReports[40]
        #expect { try receiver.unprotectRTCP(&replay) } throws: { ($0 as? SRTPError)?.code == .replayed }
        var next = rtcpPacket(ssrc: 0xA000_0001, serial: 80)
        try sender.protectRTCP(&next)
        for position in [0, 5, 9, next.count - 5, next.count - 1] {
            var tampered = next
            tampered[position] ^= 0x01
            #expect { try receiver.unprotectRTCP(&tampered) } throws: { _ in true }
        }
        try receiver.unprotectRTCP(&next)
        #expect(next == rtcpPacket(ssrc: 0xA000_0001, serial: 80))
    }

    /// libsrtp2 reads SRTCP that our context sends authenticated only (E flag clear).
    @Test func unencryptedSRTCPIsReadByLibsrtp() throws {
        let key = [UInt8](repeating: 0x5A, count: 28)
        let sender = try SRTPContext(
            suite: .aeadAES128GCM, masterKeySalt: key, direction: .outbound, encryptsRTCP: false)
        let receiver = try SRTPSession(suite: .aeadAES128GCM, masterKeySalt: key, direction: .inbound)
        let report = rtcpPacket(ssrc: 9, serial: 3)
        var packet = report
        try sender.protectRTCP(&packet)
        #expect(Array(packet.prefix(report.count)) == report)
        #expect(packet[report.count + 16] & 0x80 == 0)
        try receiver.unprotectRTCP(&packet)
        #expect(packet == report)
    }

    @Test(arguments: SRTPPairing.allCases)
    func masterKeyIdentifiers(_ pairing: SRTPPairing) throws {
        let key = [UInt8](repeating: 0x33, count: 28)
        let mki = SRTPKeyParameters.MasterKeyIdentifier(value: 0x0A0B_0C0D, length: 4)
        let (sender, receiver) = try pairing.make(suite: .aeadAES128GCM, key: key, mki: mki)
        let original = rtpPacket(
            sequence: 9, timestamp: 90, ssrc: 77, csrcCount: 1, extensionWords: 2, payloadLength: 60)
        var packet = original
        try sender.protect(&packet)
        #expect(packet.count == original.count + 16 + 4)
        #expect(Array(packet.suffix(4)) == [0x0A, 0x0B, 0x0C, 0x0D])
        try receiver.unprotect(&packet)
        #expect(packet == original)
        let report = rtcpPacket(ssrc: 77, serial: 2)
        var protectedReport = report
        try sender.protectRTCP(&protectedReport)
        #expect(protectedReport.count == report.count + 16 + 4 + 4)
        #expect(Array(protectedReport.suffix(4)) == [0x0A, 0x0B, 0x0C, 0x0D])
        try receiver.unprotectRTCP(&protectedReport)
        #expect(protectedReport == report)
    }
}
