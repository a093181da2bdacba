import Media
import SDP
import Testing

/// The known-answer packets of libsrtp's own validation (`srtp_validate` in its test/srtp_driver.c): the
/// RFC 3711 Appendix B.3 master key and salt, an RTP packet of SSRC 0xCAFEBABE with sixteen 0xAB bytes,
/// and an SR-typed RTCP packet of the same source.
enum SRTPVector {
    static let keySalt = hex("E1F97A0D3E018BE0D64FA32C06DE4139 0EC675AD498AFEEBB6960B3AABE6")
    static let rtp = hex("800F1234 DECAFBAD CAFEBABE") + [UInt8](repeating: 0xAB, count: 16)
    static let srtp80 = hex(
        "800F1234 DECAFBAD CAFEBABE 4E55DC4C E79978D8 8CA4D215 949D2402 B78D6ACC 99EA179B 8DBB")
    static let srtp32 = Array(srtp80.prefix(32))
    static let rtcp = hex("81C8000B CAFEBABE") + [UInt8](repeating: 0xAB, count: 16)
    static let srtcp = hex(
        "81C8000B CAFEBABE 7128035B E487B9BD BEF89041 F977A5A8 80000001 993E08CD 54D6C123 0798")
}

@Suite("SRTP and SRTCP through libsrtp2 (RFC 3711)")
struct SRTPTests {
    func session(
        _ direction: SRTPSession.Direction, suite: CryptoSuite = .aesCM128HMACSHA1_80, key: [UInt8] = SRTPVector.keySalt
    ) throws -> SRTPSession {
        try SRTPSession(suite: suite, masterKeySalt: key, direction: direction)
    }

    @Test func knownAnswerWithTheEightyBitTag() throws {
        var packet = SRTPVector.rtp
        try session(.outbound).protect(&packet)
        #expect(packet == SRTPVector.srtp80)
        let inbound = try session(.inbound)
        try inbound.unprotect(&packet)
        #expect(packet == SRTPVector.rtp)
        #expect(inbound.rtpStatistics.packets == 1)
    }

    @Test func knownAnswerWithTheThirtyTwoBitTag() throws {
        var packet = SRTPVector.rtp
        try session(.outbound, suite: .aesCM128HMACSHA1_32).protect(&packet)
        #expect(packet == SRTPVector.srtp32)
        try session(.inbound, suite: .aesCM128HMACSHA1_32).unprotect(&packet)
        #expect(packet == SRTPVector.rtp)
    }

    @Test(arguments: [CryptoSuite.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32])
    func knownAnswerSRTCPKeepsTheEightyBitTag(_ suite: CryptoSuite) throws {
        var packet = SRTPVector.rtcp
        try session(.outbound, suite: suite).protectRTCP(&packet)
        #expect(packet == SRTPVector.srtcp)
        let inbound = try session(.inbound, suite: suite)
        try inbound.unprotectRTCP(&packet)
        #expect(packet == SRTPVector.rtcp)
        #expect(inbound.rtcpStatistics.packets == 1)
    }

    @Test(arguments: [(CryptoSuite.aesCM128HMACSHA1_80, 10), (.aesCM128HMACSHA1_32, 4)])
    func roundTripsAStream(_ suite: CryptoSuite, _ tagLength: Int) throws {
        var generator = SeededGenerator(seed: 11)
        let key = (0..<30).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let outbound = try session(.outbound, suite: suite, key: key)
        let inbound = try session(.inbound, suite: suite, key: key)
        var sender = RTPSender(payloadType: 0, clockRate: 8000, using: &generator)
        for i in 0..<300 {
            let payload = (0..<160).map { UInt8(truncatingIfNeeded: $0 &* i) }
            let plain = try sender.packet(payload: payload, samples: 160).serialized()
            var packet = plain
            try outbound.protect(&packet)
            #expect(packet.count == plain.count + tagLength)
            #expect(packet.prefix(12) == plain.prefix(12))
            #expect(packet[12..<172] != plain[12..<172])
            try inbound.unprotect(&packet)
            #expect(packet == plain)
        }
        #expect(outbound.rtpStatistics.packets == 300)
        #expect(inbound.rtpStatistics.packets == 300 && inbound.rtpStatistics.replays == 0)
        // SRTCP adds the E flag and index (4 bytes) and an 80-bit tag with either suite.
        var report = try RTCPCompoundPacket(packets: [.receiverReport(.init(ssrc: sender.ssrc, reportBlocks: []))])
            .serialized()
        let plainReport = report
        try outbound.protectRTCP(&report)
        #expect(report.count == plainReport.count + 14)
        try inbound.unprotectRTCP(&report)
        #expect(report == plainReport)
    }

    @Test func tamperedPacketsFailAuthenticationAndAreCounted() throws {
        let outbound = try session(.outbound)
        let inbound = try session(.inbound)
        var protected = SRTPVector.rtp
        try outbound.protect(&protected)
        for index in [1, 5, 13, 27, protected.count - 1] {
            var tampered = protected
            tampered[index] ^= 0x01
            #expect {
                try inbound.unprotect(&tampered)
            } throws: { error in
                (error as? SRTPError)?.code == .authenticationFailed
            }
        }
        #expect(inbound.rtpStatistics.authenticationFailures == 5)
        // The genuine packet still passes: failures do not move the replay window.
        try inbound.unprotect(&protected)
        #expect(protected == SRTPVector.rtp)
        // A wrong key, or the other tag length, fails the same way.
        var other = SRTPVector.srtp80
        var key = SRTPVector.keySalt
        key[0] ^= 0xFF
        #expect(throws: SRTPError.self) { try session(.inbound, key: key).unprotect(&other) }
        var short = SRTPVector.srtp80
        #expect(throws: SRTPError.self) { try session(.inbound, suite: .aesCM128HMACSHA1_32).unprotect(&short) }
        var tamperedReport = SRTPVector.srtcp
        tamperedReport[9] ^= 0x80
        #expect(throws: SRTPError.self) { try inbound.unprotectRTCP(&tamperedReport) }
        #expect(inbound.rtcpStatistics.authenticationFailures == 1)
    }

    @Test func replaysAreRejectedAndCounted() throws {
        var generator = SeededGenerator(seed: 5)
        let outbound = try session(.outbound)
        let inbound = try session(.inbound)
        var sender = RTPSender(payloadType: 0, clockRate: 8000, using: &generator)
        var sent: [[UInt8]] = []
        for _ in 0..<200 {
            var packet = try sender.packet(payload: [1, 2, 3], samples: 160).serialized()
            try outbound.protect(&packet)
            sent.append(packet)
        }
        // In order, with a reordered pair inside the window.
        for index in sent.indices where index != 150 {
            var packet = sent[index]
            try inbound.unprotect(&packet)
        }
        var late = sent[150]
        try inbound.unprotect(&late)
        // A copy of a recent packet, and one older than the 128-packet window.
        for index in [199, 150, 10] {
            var replay = sent[index]
            #expect {
                try inbound.unprotect(&replay)
            } throws: { error in
                (error as? SRTPError)?.code == .replayed
            }
        }
        #expect(inbound.rtpStatistics.replays == 3)
        #expect(inbound.rtpStatistics.packets == 200)
        // SRTCP keeps its own window.
        var report = SRTPVector.rtcp
        try outbound.protectRTCP(&report)
        var copy = report
        try inbound.unprotectRTCP(&report)
        #expect(throws: SRTPError.self) { try inbound.unprotectRTCP(&copy) }
        #expect(inbound.rtcpStatistics.replays == 1)
    }

    @Test func badInputIsATypedErrorNeverACrash() throws {
        #expect {
            try SRTPSession(
                suite: .aesCM128HMACSHA1_80, masterKeySalt: [UInt8](repeating: 1, count: 29), direction: .inbound)
        } throws: { error in
            (error as? SRTPError)?.code == .badKey
        }
        #expect {
            try SRTPSession(
                suite: CryptoSuite(rawValue: "AEAD_AES_256_GCM"), masterKeySalt: SRTPVector.keySalt, direction: .inbound
            )
        } throws: { error in
            (error as? SRTPError)?.code == .unsupportedSuite
        }
        let outbound = try session(.outbound)
        let inbound = try session(.inbound)
        // Headers that claim more than the bytes hold.
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
        // Garbage of every length: rejected, never a crash.
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<5000 {
            var bytes = (0..<Int.random(in: 0..<120, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if !bytes.isEmpty && Bool.random(using: &generator) { bytes[0] = 0x80 | bytes[0] & 0x3F }
            var copy = bytes
            _ = try? inbound.unprotect(&bytes)
            _ = try? inbound.unprotectRTCP(&copy)
        }
        #expect(inbound.rtpStatistics.packets == 0)
    }

    @Test func masterKeyIdentifiers() throws {
        let mki = SRTPKeyParameters.MasterKeyIdentifier(value: 7, length: 4)
        let outbound = try SRTPSession(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .outbound, mki: mki)
        let inbound = try SRTPSession(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .inbound, mki: mki)
        var packet = SRTPVector.rtp
        try outbound.protect(&packet)
        // The MKI sits between the encrypted payload and the tag (RFC 3711 §3.1).
        #expect(packet.count == SRTPVector.rtp.count + 4 + 10)
        #expect(packet[28..<32] == [0, 0, 0, 7])
        var copy = packet
        try inbound.unprotect(&packet)
        #expect(packet == SRTPVector.rtp)
        let otherMKI = try SRTPSession(
            suite: .aesCM128HMACSHA1_80, masterKeySalt: SRTPVector.keySalt, direction: .inbound,
            mki: .init(value: 8, length: 4))
        #expect { try otherMKI.unprotect(&copy) } throws: { ($0 as? SRTPError)?.code == .unknownMKI }
    }

    @Test func keysFromOfferAnswerProtectBothDirections() throws {
        func engine(_ address: String) -> OfferAnswer {
            OfferAnswer(
                configuration: OfferAnswerConfiguration(address: address, rtpPort: 40000, srtpPolicy: .mandatory),
                random: SeededGenerator(seed: 1), keySource: OpenSSLKeySource())
        }
        var alice = engine("192.0.2.1")
        var bob = engine("192.0.2.2")
        let offer = try alice.makeOffer()
        try bob.receiveOffer(offer)
        let answer = try bob.makeAnswer()
        let aliceSession = try alice.receiveAnswer(answer.sessionDescription)
        let aliceKeys = try #require(aliceSession.srtp)
        let bobKeys = try #require(answer.session.srtp)
        #expect(aliceKeys.localKeySalt != bobKeys.localKeySalt)
        let aliceSRTP = try SRTPSession.pair(for: aliceKeys)
        let bobSRTP = try SRTPSession.pair(for: bobKeys)
        var toBob = SRTPVector.rtp
        try aliceSRTP.outbound.protect(&toBob)
        try bobSRTP.inbound.unprotect(&toBob)
        #expect(toBob == SRTPVector.rtp)
        var toAlice = SRTPVector.rtcp
        try bobSRTP.outbound.protectRTCP(&toAlice)
        try aliceSRTP.inbound.unprotectRTCP(&toAlice)
        #expect(toAlice == SRTPVector.rtcp)
        // Protecting a sequence number twice would reuse keystream: refused (allow_repeat_tx off).
        var again = SRTPVector.rtp
        #expect { try aliceSRTP.outbound.protect(&again) } throws: { ($0 as? SRTPError)?.code == .replayed }
        #expect(again == SRTPVector.rtp)
        // A packet protected with our own key does not pass our inbound session.
        var mine = SRTPVector.rtp
        mine[3] &+= 1
        try aliceSRTP.outbound.protect(&mine)
        #expect(throws: SRTPError.self) { try aliceSRTP.inbound.unprotect(&mine) }
    }

    @Test func zeroCopyTransformInACallersBuffer() throws {
        let outbound = try session(.outbound)
        var buffer = [UInt8](repeating: 0, count: 28 + SRTPSession.maximumTrailerLength)
        buffer.replaceSubrange(0..<28, with: SRTPVector.rtp)
        let length = try buffer.withUnsafeMutableBytes { try outbound.transform($0, length: 28, isRTCP: false) }
        #expect(Array(buffer.prefix(length)) == SRTPVector.srtp80)
        var small = SRTPVector.rtp
        #expect {
            try small.withUnsafeMutableBytes { try outbound.transform($0, length: 28, isRTCP: false) }
        } throws: { ($0 as? SRTPError)?.code == .bufferTooSmall }
    }
}

@Suite("Media randomness")
struct MediaRandomTests {
    @Test func openSSLKeysAreFreshAndSized() {
        var source = OpenSSLKeySource()
        let a = source.makeKeyMaterial(count: 30)
        let b = source.makeKeyMaterial(count: 30)
        #expect(a?.count == 30 && b?.count == 30 && a != b)
        var generator = MediaRandomNumberGenerator()
        #expect(generator.next() != generator.next())
    }
}
