import SDP
import Testing

/// AEAD_AES_128_GCM over SDES (RFC 7714 §12): offered and accepted only when configured.
@Suite("AEAD_AES_128_GCM crypto suite")
struct CryptoSuiteGCMTests {
    /// 28 bytes of key and salt, base64.
    static let gcmKey = patternKey(1, count: 28)

    @Test func theSuiteCarries28BytesOfKeyAndSalt() {
        #expect(CryptoSuite.aeadAES128GCM.keySaltLength == 28)
        #expect(CryptoSuite(rawValue: "aead_aes_128_gcm").keySaltLength == 28)
        #expect(CryptoSuite.supported.contains(.aeadAES128GCM))
        #expect(!CryptoSuite.defaultSuites.contains(.aeadAES128GCM))
    }

    @Test func notOfferedByDefault() throws {
        var engine = OfferAnswer.testing(policy: .mandatory)
        let offer = try engine.makeOffer()
        let suites = try offer.media[0].attributes(named: "crypto").map {
            try CryptoAttribute(parsingAttributeValue: $0.value ?? "").suite
        }
        #expect(suites == [.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32])
    }

    @Test func offeredFirstWhenConfigured() throws {
        var engine = OfferAnswer.testing(policy: .mandatory) {
            $0.cryptoSuites = [.aeadAES128GCM, .aesCM128HMACSHA1_80]
        }
        let offer = try engine.makeOffer()
        let cryptos = try offer.media[0].attributes(named: "crypto").map {
            try CryptoAttribute(parsingAttributeValue: $0.value ?? "")
        }
        #expect(cryptos.map(\.suite) == [.aeadAES128GCM, .aesCM128HMACSHA1_80])
        #expect(cryptos.first?.keyParameters.first?.keySaltBytes?.count == 28)
    }

    @Test func acceptedOnlyWhenConfigured() throws {
        let media =
            "m=audio 5000 RTP/SAVP 0\n"
            + "a=crypto:1 AEAD_AES_128_GCM inline:\(Self.gcmKey)\n"
            + "a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:\(patternKey(1))\n"
        var byDefault = OfferAnswer.testing(policy: .mandatory)
        #expect(try byDefault.answer(try sdp(Malformed.head + media)).session.srtp?.tag == 2)

        var configured = OfferAnswer.testing(policy: .mandatory) {
            $0.cryptoSuites = [.aeadAES128GCM, .aesCM128HMACSHA1_80]
        }
        let srtp = try #require(try configured.answer(try sdp(Malformed.head + media)).session.srtp)
        #expect(srtp.tag == 1)
        #expect(srtp.suite == .aeadAES128GCM)
        #expect(srtp.remoteKeySalt.count == 28)
        #expect(srtp.localKeySalt.count == 28)
    }

    @Test func aGCMKeyOfTheWrongLengthIsSkipped() throws {
        let media =
            "m=audio 5000 RTP/SAVP 0\n"
            + "a=crypto:1 AEAD_AES_128_GCM inline:\(patternKey(1))\n"
            + "a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:\(patternKey(1))\n"
        var engine = OfferAnswer.testing(policy: .mandatory) {
            $0.cryptoSuites = [.aeadAES128GCM, .aesCM128HMACSHA1_80]
        }
        #expect(try engine.answer(try sdp(Malformed.head + media)).session.srtp?.tag == 2)
    }
}
