import Testing

@testable import Media
@testable import SDP

/// Either SRTP implementation, so the cross-checks run both ways.
protocol SRTPEndpoint: AnyObject {
    func protect(_ packet: inout [UInt8]) throws(SRTPError)
    func unprotect(_ packet: inout [UInt8]) throws(SRTPError)
    func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError)
    func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError)
    var rtpStatistics: SRTPStatistics { get }
    var rtcpStatistics: SRTPStatistics { get }
}

extension SRTPSession: SRTPEndpoint {}
extension SRTPContext: SRTPEndpoint {}

/// Which implementation protects and which unprotects.
enum SRTPPairing: String, CaseIterable, CustomTestStringConvertible {
    case nativeToLibsrtp, libsrtpToNative, nativeToNative

    var testDescription: String { rawValue }

    func make(suite: CryptoSuite, key: [UInt8], mki: SRTPKeyParameters.MasterKeyIdentifier? = nil) throws -> (
        any SRTPEndpoint, any SRTPEndpoint
    ) {
        func native(_ direction: SRTPContext.Direction) throws -> any SRTPEndpoint {
            try SRTPContext(suite: suite, masterKeySalt: key, direction: direction, mki: mki)
        }
        func libsrtp(_ direction: SRTPSession.Direction) throws -> any SRTPEndpoint {
            try SRTPSession(suite: suite, masterKeySalt: key, direction: direction, mki: mki)
        }
        switch self {
        case .nativeToLibsrtp: return (try native(.outbound), try libsrtp(.inbound))
        case .libsrtpToNative: return (try libsrtp(.outbound), try native(.inbound))
        case .nativeToNative: return (try native(.outbound), try native(.inbound))
        }
    }
}

/// An RTP packet with a given sequence number and payload length.
func rtpPacket(sequence: UInt16, timestamp: UInt32, ssrc: UInt32, payloadLength: Int) -> [UInt8] {
    var bytes: [UInt8] = [0x80, 0x00, UInt8(sequence >> 8), UInt8(truncatingIfNeeded: sequence)]
    for word in [timestamp, ssrc] { bytes += (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    return bytes + (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(sequence)) }
}

/// A receiver report of `ssrc` padded with a little extra (an RTCP packet of `words` 32-bit words).
func rtcpPacket(ssrc: UInt32, serial: Int) -> [UInt8] {
    let extra = serial % 5
    var bytes: [UInt8] = [0x80, 201, 0, UInt8(1 + extra)]
    bytes += (0..<4).map { UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * $0)) }
    return bytes + (0..<(4 * extra)).map { UInt8(truncatingIfNeeded: $0 &+ serial) }
}

@Suite("SRTP and SRTCP on OpenSSL (RFC 3711)")
struct SRTPContextTests {
    // MARK: RFC 3711 Appendix B

    @Test func appendixB2KeystreamVectors() throws {
        let key = hex("2B7E151628AED2A6ABF7158809CF4F3C")
        let iv = hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000")
        let stream = try #require(SRTPKeyDerivation.keystream(key: key, iv: iv, count: 0xFF02 * 16))
        func block(_ counter: Int) -> [UInt8] { Array(stream[(16 * counter)..<(16 * counter + 16)]) }
        #expect(block(0x0000) == hex("E03EAD0935C95E80E166B16DD92B4EB4"))
        #expect(block(0x0001) == hex("D23513162B02D0F72A43A2FE4A5F97AB"))
        #expect(block(0x0002) == hex("41E95B3BB0A2E8DD477901E4FCA894C0"))
        #expect(block(0xFEFF) == hex("EC8CDF7398607CB0F2D21675EA9EA1E4"))
        #expect(block(0xFF00) == hex("362B7C3C6773516318A077D7FC5073AE"))
        #expect(block(0xFF01) == hex("6A2CC3787889374FBEB4C81B17BA6C44"))
    }

    @Test func appendixB3KeyDerivationVectors() throws {
        let masterKeySalt = hex("E1F97A0D3E018BE0D64FA32C06DE4139 0EC675AD498AFEEBB6960B3AABE6")
        #expect(
            SRTPKeyDerivation.derive(masterKeySalt, label: 0, count: 16) == hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(SRTPKeyDerivation.derive(masterKeySalt, label: 2, count: 14) == hex("30CBBC08863D8C85D49DB34A9AE1"))
        let authenticationKey = hex(
            "CEBE321F6FF7716B6FD4AB49AF256A156D38BAA48F0A0ACF3C34E2359E6CDBCE"
                + "E049646C43D9327AD175578EF72270986371C10C9A369AC2F94A8C5FBCDDDC25"
                + "6D6E919A48B610EF17C2041E474035766B68642C59BBFC2F34DB60DBDFB2")
        #expect(SRTPKeyDerivation.derive(masterKeySalt, label: 1, count: 94) == authenticationKey)
    }

    /// libsrtp's own known-answer packets (see ``SRTPVector``), produced by the native implementation.
    @Test func knownAnswerPackets() throws {
        for (suite, expected) in [
            (CryptoSuite.aesCM128HMACSHA1_80, SRTPVector.srtp80), (.aesCM128HMACSHA1_32, SRTPVector.srtp32),
        ] {
            let outbound = try SRTPContext(suite: suite, masterKeySalt: SRTPVector.keySalt, direction: .outbound)
            let inbound = try SRTPContext(suite: suite, masterKeySalt: SRTPVector.keySalt, direction: .inbound)
            var packet = SRTPVector.rtp
            try outbound.protect(&packet)
            #expect(packet == expected)
            try inbound.unprotect(&packet)
            #expect(packet == SRTPVector.rtp)
            var report = SRTPVector.rtcp
            try outbound.protectRTCP(&report)
            #expect(report == SRTPVector.srtcp)
            try inbound.unprotectRTCP(&report)
            #expect(report == SRTPVector.rtcp)
            #expect(inbound.rtpStatistics.packets == 1 && inbound.rtcpStatistics.packets == 1)
        }
    }

    // MARK: Cross-checks with libsrtp2

    /// 400 RTP packets from sequence number 65,300 (so the ROC goes 0 -> 1), payloads 0...199 bytes, delivered
    /// with neighbours swapped and some moved 40 back; then replays and tampered packets. 60 SRTCP packets
    /// likewise.
    @Test(
        arguments: SRTPPairing.allCases, [CryptoSuite.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32])
    func crossCheck(_ pairing: SRTPPairing, _ suite: CryptoSuite) throws {
        var generator = SeededGenerator(seed: 42)
        let key = (0..<30).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let (sender, receiver) = try pairing.make(suite: suite, key: key)
        let ssrc: UInt32 = 0x1234_5678
        var plain: [[UInt8]] = []
        var wire: [[UInt8]] = []
        for i in 0..<400 {
            let packet = rtpPacket(
                sequence: UInt16(truncatingIfNeeded: 65_300 + i), timestamp: UInt32(160 * i), ssrc: ssrc,
                payloadLength: (i * 37) % 200)
            var protected = packet
            try sender.protect(&protected)
            #expect(protected.count == packet.count + (suite.matches(.aesCM128HMACSHA1_80) ? 10 : 4))
            plain.append(packet)
            wire.append(protected)
        }
        // Delivery order: pairs swapped, and every 50th packet held back 40 places (inside the window).
        var order = Array(wire.indices)
        for i in stride(from: 0, to: order.count - 1, by: 2) { order.swapAt(i, i + 1) }
        for i in stride(from: 50, to: order.count - 40, by: 50) {
            let held = order.remove(at: i)
            order.insert(held, at: i + 40)
        }
        for i in order {
            var packet = wire[i]
            try receiver.unprotect(&packet)
            #expect(packet == plain[i], "packet \(i)")
        }
        #expect(receiver.rtpStatistics.packets == 400)
        // Replays: a recent one, one from before the wrap inside the window, one far behind it.
        for i in [399, 300, 10] {
            var replay = wire[i]
            #expect { try receiver.unprotect(&replay) } throws: { ($0 as? SRTPError)?.code == .replayed }
            #expect(replay == wire[i])
        }
        // Tampered header, payload and tag of new packets: authentication fails, state is unchanged.
        var fresh = rtpPacket(
            sequence: UInt16(truncatingIfNeeded: 65_700), timestamp: 1, ssrc: ssrc, payloadLength: 160)
        let freshPlain = fresh
        try sender.protect(&fresh)
        // (Flipping the sequence number can land on an index already seen: a replay before the tag is checked.)
        let failuresBefore = receiver.rtpStatistics.authenticationFailures
        for position in [1, 3, 11, 12, 100, fresh.count - 1] {
            var tampered = fresh
            tampered[position] ^= 0x04
            #expect { try receiver.unprotect(&tampered) } throws: {
                let code = ($0 as? SRTPError)?.code
                return code == .authenticationFailed || (position == 3 && code == .replayed)
            }
        }
        #expect(receiver.rtpStatistics.authenticationFailures - failuresBefore >= 5)
        try receiver.unprotect(&fresh)
        #expect(fresh == freshPlain)

        // SRTCP: 60 compound packets, swapped in pairs.
        var reports: [[UInt8]] = []
        var protectedReports: [[UInt8]] = []
        for i in 0..<60 {
            let report = rtcpPacket(ssrc: ssrc, serial: i)
            var protected = report
            try sender.protectRTCP(&protected)
            #expect(protected.count == report.count + 14)
            reports.append(report)
            protectedReports.append(protected)
        }
        var reportOrder = Array(reports.indices)
        for i in stride(from: 0, to: 59, by: 2) { reportOrder.swapAt(i, i + 1) }
        for i in reportOrder {
            var packet = protectedReports[i]
            try receiver.unprotectRTCP(&packet)
            #expect(packet == reports[i], "report \(i)")
        }
        var replay = protectedReports[58]
        #expect { try receiver.unprotectRTCP(&replay) } throws: { ($0 as? SRTPError)?.code == .replayed }
        var nextReport = rtcpPacket(ssrc: ssrc, serial: 60)
        try sender.protectRTCP(&nextReport)
        for position in [0, 5, 9, nextReport.count - 12, nextReport.count - 1] {
            var tampered = nextReport
            tampered[position] ^= 0x10
            #expect { try receiver.unprotectRTCP(&tampered) } throws: {
                let code = ($0 as? SRTPError)?.code
                return code == .authenticationFailed || code == .malformedPacket
            }
        }
        try receiver.unprotectRTCP(&nextReport)
        #expect(nextReport == rtcpPacket(ssrc: ssrc, serial: 60))
        #expect(receiver.rtcpStatistics.packets == 61)
    }

    @Test(arguments: SRTPPairing.allCases)
    func masterKeyIdentifiersCrossCheck(_ pairing: SRTPPairing) throws {
        let mki = SRTPKeyParameters.MasterKeyIdentifier(value: 0x0102_0304, length: 4)
        let (sender, receiver) = try pairing.make(suite: .aesCM128HMACSHA1_80, key: SRTPVector.keySalt, mki: mki)
        var packet = SRTPVector.rtp
        try sender.protect(&packet)
        #expect(packet.count == 28 + 4 + 10)
        #expect(packet[28..<32] == [1, 2, 3, 4])
        try receiver.unprotect(&packet)
        #expect(packet == SRTPVector.rtp)
        var report = SRTPVector.rtcp
        try sender.protectRTCP(&report)
        #expect(report.count == 24 + 4 + 4 + 10)
        try receiver.unprotectRTCP(&report)
        #expect(report == SRTPVector.rtcp)
        // Another MKI is refused.
        let other = try SRTPContext(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .inbound,
            mki: .init(value: 9, length: 4))
        var next = SRTPVector.rtp
        next[3] &+= 1
        try sender.protect(&next)
        #expect { try other.unprotect(&next) } throws: { ($0 as? SRTPError)?.code == .unknownMKI }
    }

    // MARK: Index estimation and the replay window

    @Test func indexEstimationFollowsAppendixA() {
        var window = SRTPReplayWindow(size: 128)
        #expect(window.estimatedIndex(sequence: 65_000) == 65_000)
        window.record(65_000)
        #expect(window.estimatedIndex(sequence: 65_535) == 65_535)
        #expect(window.estimatedIndex(sequence: 3) == 0x1_0003)
        window.record(0x1_0003)
        #expect(window.estimatedIndex(sequence: 65_530) == 65_530)
        #expect(window.estimatedIndex(sequence: 40_000) == 40_000)
        #expect(window.estimatedIndex(sequence: 30_000) == 0x1_0000 + 30_000)
        // A first packet far ahead of sequence 0 keeps ROC 0 (there is no ROC -1).
        var fresh = SRTPReplayWindow(size: 64)
        fresh.record(10)
        #expect(fresh.estimatedIndex(sequence: 60_000) == 60_000)
        #expect(fresh.accepts(11) && fresh.accepts(9) && !fresh.accepts(10))
        fresh.record(1_000)
        #expect(!fresh.accepts(1_000 - 64) && fresh.accepts(1_000 - 63) && !fresh.accepts(10))
    }

    @Test func protectingAnIndexTwiceIsRefused() throws {
        let outbound = try SRTPContext(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .outbound)
        var packet = SRTPVector.rtp
        try outbound.protect(&packet)
        var again = SRTPVector.rtp
        #expect { try outbound.protect(&again) } throws: { ($0 as? SRTPError)?.code == .replayed }
        #expect(again == SRTPVector.rtp)
        #expect(outbound.rtpStatistics.replays == 1)
    }

    // MARK: Bad input

    @Test func badInputIsATypedErrorNeverACrash() throws {
        #expect {
            try SRTPContext(
                suite: .aesCM128HMACSHA1_80, masterKeySalt: [UInt8](repeating: 1, count: 29), direction: .inbound)
        } throws: { ($0 as? SRTPError)?.code == .badKey }
        #expect {
            try SRTPContext(
                suite: CryptoSuite(rawValue: "AEAD_AES_256_GCM"), masterKeySalt: SRTPVector.keySalt, direction: .inbound
            )
        } throws: { ($0 as? SRTPError)?.code == .unsupportedSuite }
        let outbound = try SRTPContext(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .outbound)
        let inbound = try SRTPContext(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .inbound)
        for text in [
            "80 00 00", "80 00 00 01 00 00 00 00 00 00 00", "8F 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00",
            "90 00 00 01 00 00 00 00 00 00 00 01 BE DE FF FF 00 00 00 00", "40 00 00 01 00 00 00 00 00 00 00 01",
        ] {
            var packet = hex(text)
            #expect { try outbound.protect(&packet) } throws: { ($0 as? SRTPError)?.code == .malformedPacket }
            #expect(packet == hex(text))
            #expect { try inbound.unprotect(&packet) } throws: { ($0 as? SRTPError)?.code == .malformedPacket }
        }
        var direction = SRTPVector.rtp
        #expect { try inbound.protect(&direction) } throws: { ($0 as? SRTPError)?.code == .wrongDirection }
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<5000 {
            var bytes = (0..<Int.random(in: 0..<120, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if !bytes.isEmpty && Bool.random(using: &generator) { bytes[0] = 0x80 | bytes[0] & 0x3F }
            var copy = bytes
            var rtcp = bytes
            _ = try? inbound.unprotect(&bytes)
            _ = try? inbound.unprotectRTCP(&copy)
            _ = try? outbound.protectRTCP(&rtcp)
        }
        #expect(inbound.rtpStatistics.packets == 0 && inbound.rtcpStatistics.packets == 0)
        // The zero-copy form needs room for the longest trailer.
        var small = SRTPVector.rtp
        #expect {
            try small.withUnsafeMutableBytes { try outbound.transform($0, length: 28, isRTCP: false) }
        } throws: { ($0 as? SRTPError)?.code == .bufferTooSmall }
        var buffer = SRTPVector.rtp + [UInt8](repeating: 0, count: SRTPContext.maximumTrailerLength)
        let length = try buffer.withUnsafeMutableBytes { try outbound.transform($0, length: 28, isRTCP: false) }
        #expect(Array(buffer.prefix(length)) == SRTPVector.srtp80)
    }

    @Test func pairFromOfferAnswerKeys() throws {
        let parameters = NegotiatedSession.SRTPParameters(
            suite: .aesCM128HMACSHA1_32, tag: 1, localKeySalt: SRTPVector.keySalt,
            remoteKeySalt: SRTPVector.keySalt.reversed(), remoteLifetime: nil, remoteMKI: nil)
        var peerParameters = parameters
        swap(&peerParameters.localKeySalt, &peerParameters.remoteKeySalt)
        let native = try SRTPContext.pair(for: parameters)
        let peer = try SRTPSession.pair(for: peerParameters)
        var packet = SRTPVector.rtp
        try native.outbound.protect(&packet)
        #expect(packet == SRTPVector.srtp32)
        try peer.inbound.unprotect(&packet)
        #expect(packet == SRTPVector.rtp)
        var report = SRTPVector.rtcp
        try peer.outbound.protectRTCP(&report)
        try native.inbound.unprotectRTCP(&report)
        #expect(report == SRTPVector.rtcp)
        #expect(native.outbound.direction == .outbound && native.inbound.direction == .inbound)
    }
}
