import Testing

@testable import Media
@testable import SDP

/// RFC 7714 §16 and §17: the session key, salt and packets of the AEAD_AES_128_GCM vectors.
enum GCMVector {
    static let key = hex("000102030405060708090a0b0c0d0e0f")
    /// "Quid pro quo".
    static let salt = hex("517569642070726f2071756f")
    /// Sequence number 0xf17b, SSRC 0x5501a0b2, "Gallia est omnis divisa in partes tres".
    static let rtp = hex(
        "8040f17b 8041f8d3 5501a0b2 47616c6c 69612065 7374206f 6d6e6973 20646976 69736120 696e2070 61727465 73207472 6573"
    )
    /// §16.1.1.
    static let srtp = hex(
        "8040f17b 8041f8d3 5501a0b2 f24de3a3 fb34de6c acba861c 9d7e4bca be633bd5 0d294e6f 42a5f47a 51c7d19b 36de3adf"
            + "8833899d 7f27beb1 6a9152cf 765ee439 0cce")
    /// The IV of that packet (§8.1).
    static let rtpIV = hex("51753c6580c2726f20718414")
    /// The compound packet of §17.1 to §17.4, SSRC "Mars".
    static let rtcp = hex(
        "81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef deadbeef"
            + "deadbeef")
    static let rtcpSSRC: UInt32 = 0x4d61_7273
    static let rtcpIndex: UInt64 = 0x5d4
    /// §17.1: encrypted, E flag set, index 0x5d4.
    static let srtcp = hex(
        "81c8000d 4d617273 63e94885 dcdab67c a727d766 2f6b7e99 7ff5c0f7 6c06f32d c676a5f1 730d6fda 4ce09b46 86303ded"
            + "0bb9275b c84aa458 96cf4d2f c5abf872 45d9eade 800005d4")
    /// §17.3: authenticated only, E flag clear.
    static let srtcpUnencrypted = hex(
        "81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef deadbeef"
            + "deadbeef 841dd968 3dd78ec9 2ae58790 125f62b3 000005d4")

    /// A context over the vectors' session keys.
    static func context(_ direction: SRTPContext.Direction, encryptsRTCP: Bool = true) throws -> SRTPContext {
        func keys() throws -> SRTPGCMKeys {
            try SRTPGCMKeys(sessionKey: key, sessionSalt: salt, isEncrypting: direction == .outbound)
        }
        return SRTPContext(
            transform: .galoisCounterMode(rtp: try keys(), rtcp: try keys()), suite: .aeadAES128GCM,
            direction: direction, encryptsRTCP: encryptsRTCP)
    }

    /// An outbound context whose next SRTCP index for "Mars" is 0x5d4.
    static func rtcpSender(encryptsRTCP: Bool) throws -> SRTPContext {
        let sender = try context(.outbound, encryptsRTCP: encryptsRTCP)
        var window = SRTPReplayWindow(size: 128)
        window.record(rtcpIndex - 1)
        sender.rtcpStreams[rtcpSSRC] = window
        return sender
    }
}

@Suite("AEAD_AES_128_GCM SRTP and SRTCP (RFC 7714)")
struct SRTPGCMTests {
    // MARK: RFC 7714 §16 (SRTP)

    @Test func ivFormation() throws {
        let keys = try SRTPGCMKeys(sessionKey: GCMVector.key, sessionSalt: GCMVector.salt, isEncrypting: true)
        defer { keys.free() }
        let iv = withUnsafeBytes(of: keys.iv(ssrc: 0x5501_a0b2, index: 0xf17b)) { Array($0) }
        #expect(iv == GCMVector.rtpIV)
    }

    @Test func section16_1_1Encryption() throws {
        let sender = try GCMVector.context(.outbound)
        var packet = GCMVector.rtp
        try sender.protect(&packet)
        #expect(packet == GCMVector.srtp)
        #expect(sender.trailerLength(isRTCP: false) == 16)
    }

    @Test func section16_1_2Decryption() throws {
        let receiver = try GCMVector.context(.inbound)
        var packet = GCMVector.srtp
        try receiver.unprotect(&packet)
        #expect(packet == GCMVector.rtp)
        #expect(receiver.rtpStatistics.packets == 1)
    }

    /// §16.1.3 and §16.1.4: the whole packet as associated data and nothing to encrypt gives this tag, and a
    /// changed byte does not verify.
    @Test func section16_1_3TaggingOnly() throws {
        let sealer = try SRTPGCMKeys(sessionKey: GCMVector.key, sessionSalt: GCMVector.salt, isEncrypting: true)
        let opener = try SRTPGCMKeys(sessionKey: GCMVector.key, sessionSalt: GCMVector.salt, isEncrypting: false)
        defer {
            sealer.free()
            opener.free()
        }
        let iv = sealer.iv(ssrc: 0x5501_a0b2, index: 0xf17b)
        let length = GCMVector.rtp.count
        var bytes = GCMVector.rtp + [UInt8](repeating: 0, count: 16)
        let sealed = bytes.withUnsafeMutableBytes {
            sealer.seal($0, iv: iv, aad: 0..<length, moreAAD: 0..<0, data: length..<length, tagOffset: length)
        }
        #expect(sealed)
        #expect(Array(bytes[length...]) == hex("22493f82d2bce397e9d79e3b19aa4216"))
        let opened = bytes.withUnsafeMutableBytes {
            opener.open($0, iv: iv, aad: 0..<length, moreAAD: 0..<0, data: length..<length, tagOffset: length)
        }
        #expect(opened == true)
        bytes[20] ^= 0x01
        let tampered = bytes.withUnsafeMutableBytes {
            opener.open($0, iv: iv, aad: 0..<length, moreAAD: 0..<0, data: length..<length, tagOffset: length)
        }
        #expect(tampered == false)
    }

    /// A changed header byte (associated data), payload byte or tag byte fails authentication, is counted, and
    /// leaves the packet as it arrived; the untouched packet then still decrypts.
    @Test(arguments: [1, 5, 11, 12, 30, 49, 50, 65])
    func tamperedSRTPFailsAuthentication(_ position: Int) throws {
        let receiver = try GCMVector.context(.inbound)
        var tampered = GCMVector.srtp
        tampered[position] ^= 0x20
        let arrived = tampered
        #expect { try receiver.unprotect(&tampered) } throws: { ($0 as? SRTPError)?.code == .authenticationFailed }
        #expect(tampered == arrived)
        #expect(receiver.rtpStatistics.authenticationFailures == 1)
        var packet = GCMVector.srtp
        try receiver.unprotect(&packet)
        #expect(packet == GCMVector.rtp)
    }

    // MARK: RFC 7714 §17 (SRTCP)

    @Test func section17_1Encryption() throws {
        let sender = try GCMVector.rtcpSender(encryptsRTCP: true)
        var packet = GCMVector.rtcp
        try sender.protectRTCP(&packet)
        #expect(packet == GCMVector.srtcp)
        #expect(sender.trailerLength(isRTCP: true) == 20)
    }

    @Test func section17_2Decryption() throws {
        let receiver = try GCMVector.context(.inbound)
        var packet = GCMVector.srtcp
        try receiver.unprotectRTCP(&packet)
        #expect(packet == GCMVector.rtcp)
    }

    @Test func section17_3UnencryptedTagging() throws {
        let sender = try GCMVector.rtcpSender(encryptsRTCP: false)
        var packet = GCMVector.rtcp
        try sender.protectRTCP(&packet)
        #expect(packet == GCMVector.srtcpUnencrypted)
    }

    @Test func section17_4UnencryptedVerification() throws {
        let receiver = try GCMVector.context(.inbound)
        var packet = GCMVector.srtcpUnencrypted
        try receiver.unprotectRTCP(&packet)
        #expect(packet == GCMVector.rtcp)
    }

    /// Changing the header, the payload, the tag, the E flag or the index fails authentication.
    /// (The vectors are 72 bytes: 52 of RTCP, the 16-byte tag at 52, the E flag and index at 68.)
    @Test(arguments: [
        (GCMVector.srtcp, 2), (GCMVector.srtcp, 6), (GCMVector.srtcp, 20), (GCMVector.srtcp, 60),
        (GCMVector.srtcp, 68), (GCMVector.srtcp, 71), (GCMVector.srtcpUnencrypted, 3),
        (GCMVector.srtcpUnencrypted, 30), (GCMVector.srtcpUnencrypted, 60), (GCMVector.srtcpUnencrypted, 68),
    ])
    func tamperedSRTCPFailsAuthentication(_ vector: [UInt8], _ position: Int) throws {
        let receiver = try GCMVector.context(.inbound)
        var tampered = vector
        tampered[position] ^= position == 68 ? 0x80 : 0x01
        let arrived = tampered
        #expect { try receiver.unprotectRTCP(&tampered) } throws: {
            ($0 as? SRTPError)?.code == .authenticationFailed
        }
        #expect(tampered == arrived)
        var packet = vector
        try receiver.unprotectRTCP(&packet)
        #expect(packet == GCMVector.rtcp)
        #expect { try receiver.unprotectRTCP(&packet) } throws: { _ in true }
    }

    @Test func replaysAreRefused() throws {
        let receiver = try GCMVector.context(.inbound)
        var packet = GCMVector.srtp
        try receiver.unprotect(&packet)
        var again = GCMVector.srtp
        #expect { try receiver.unprotect(&again) } throws: { ($0 as? SRTPError)?.code == .replayed }
        var report = GCMVector.srtcp
        try receiver.unprotectRTCP(&report)
        var reportAgain = GCMVector.srtcp
        #expect { try receiver.unprotectRTCP(&reportAgain) } throws: { ($0 as? SRTPError)?.code == .replayed }
        #expect(receiver.rtpStatistics.replays == 1 && receiver.rtcpStatistics.replays == 1)
    }

    @Test func badInputIsATypedErrorNeverACrash() throws {
        let key = [UInt8](repeating: 7, count: 28)
        #expect { try SRTPContext(suite: .aeadAES128GCM, masterKeySalt: key + [0, 0], direction: .outbound) } throws: {
            ($0 as? SRTPError)?.code == .badKey
        }
        let receiver = try SRTPContext(suite: .aeadAES128GCM, masterKeySalt: key, direction: .inbound)
        for length in [0, 1, 11, 12, 27] {
            var short = Array(GCMVector.srtp.prefix(length))
            #expect { try receiver.unprotect(&short) } throws: { ($0 as? SRTPError)?.code == .malformedPacket }
            var shortReport = Array(GCMVector.srtcp.prefix(length))
            #expect { try receiver.unprotectRTCP(&shortReport) } throws: {
                ($0 as? SRTPError)?.code == .malformedPacket
            }
        }
        var extensionOverrun = hex("9000000100000000000000010001ffff") + [UInt8](repeating: 0, count: 20)
        #expect { try receiver.unprotect(&extensionOverrun) } throws: { ($0 as? SRTPError)?.code == .malformedPacket }
    }
}
