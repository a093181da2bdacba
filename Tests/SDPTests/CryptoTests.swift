import SDP
import Testing

@Suite("a=crypto (RFC 4568)")
struct CryptoTests {
    static let key = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"

    @Test(
        "crypto lines round-trip",
        arguments: [
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|2^20|1:4",
            "2 AES_CM_128_HMAC_SHA1_32 inline:\(CryptoTests.key)|2^20",
            "3 AES_CM_128_HMAC_SHA1_32 inline:\(CryptoTests.key)|1:4",
            "4 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|1048576|7:1",
            "5 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|2^20|1:4;inline:\(CryptoTests.key)|2^20|2:4 FEC_ORDER=FEC_SRTP",
            "6 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key) UNENCRYPTED_SRTCP KDR=1",
            "123456789 AEAD_AES_256_GCM inline:\(CryptoTests.key)",
        ])
    func roundTrip(_ value: String) throws {
        let crypto = try CryptoAttribute(parsingAttributeValue: value)
        #expect(crypto.attributeValue == value)
        #expect(try CryptoAttribute(parsingAttributeValue: crypto.attributeValue) == crypto)
    }

    @Test func fieldsAreParsed() throws {
        let crypto = try CryptoAttribute(
            parsingAttributeValue: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|2^20|1:4 UNENCRYPTED_SRTP")
        #expect(crypto.tag == 1)
        #expect(crypto.suite == .aesCM128HMACSHA1_80)
        #expect(crypto.suite.keySaltLength == 30)
        #expect(crypto.sessionParameters == ["UNENCRYPTED_SRTP"])
        let key = try #require(crypto.keyParameters.first)
        #expect(key.method == "inline")
        #expect(key.keySalt == Self.key)
        #expect(key.lifetime == .powerOfTwo(20))
        #expect(key.mki == .init(value: 1, length: 4))
        let bytes = try #require(key.keySaltBytes)
        #expect(bytes.count == 30)
        #expect(Array(bytes.prefix(4)) == Array("YS__".utf8))

        let decimal = try CryptoAttribute(parsingAttributeValue: "9 AES_CM_128_HMAC_SHA1_32 inline:\(Self.key)|65536")
        #expect(decimal.keyParameters.first?.lifetime == .packets(65536))
        #expect(decimal.keyParameters.first?.mki == nil)
        #expect(CryptoSuite(rawValue: "AEAD_AES_256_GCM").keySaltLength == nil)
    }

    @Test func builtKeysEncode() {
        let key = SRTPKeyParameters(keySalt: Array(0..<30), lifetime: .packets(1000), mki: .init(value: 300, length: 2))
        let crypto = CryptoAttribute(tag: 1, suite: .aesCM128HMACSHA1_80, keyParameters: [key])
        #expect(
            crypto.attributeValue
                == "1 AES_CM_128_HMAC_SHA1_80 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd|1000|300:2")
        #expect(key.keySaltBytes == Array(0..<30))
    }

    @Test(
        "malformed crypto lines are refused",
        arguments: [
            "AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)",
            "x AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)",
            "1234567890 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)",
            "1 AES_CM_128_HMAC_SHA1_80",
            "1 AES-CM inline:\(CryptoTests.key)",
            "1 AES_CM_128_HMAC_SHA1_80 inline:",
            "1 AES_CM_128_HMAC_SHA1_80 inline:not*base64",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|2^",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|2^65",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|1:0",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|1:129",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|1:4|2^20",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key)|2^20|1:4|x",
            "1 AES_CM_128_HMAC_SHA1_80 inline:\(CryptoTests.key);",
            "1 AES_CM_128_HMAC_SHA1_80 \(CryptoTests.key)",
        ])
    func refused(_ value: String) {
        #expect {
            try CryptoAttribute(parsingAttributeValue: value)
        } throws: { error in
            (error as? SDPError)?.code == .malformedAttribute && (error as? SDPError)?.line == "a=crypto:" + value
        }
    }

    @Test(
        "base64 of RFC 4648 §10",
        arguments: [
            ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ])
    func base64(_ plain: String, _ encoded: String) throws {
        #expect(SRTPKeyParameters(keySalt: Array(plain.utf8)).keySalt == encoded)
        let parsed = try CryptoAttribute(parsingAttributeValue: "1 X inline:" + encoded)
        #expect(parsed.keyParameters.first?.keySaltBytes == Array(plain.utf8))
        let unpadded = String(encoded.prefix { $0 != "=" })
        let lenient = try CryptoAttribute(parsingAttributeValue: "1 X inline:" + unpadded)
        #expect(lenient.keyParameters.first?.keySaltBytes == Array(plain.utf8))
    }

    @Test func otherKeyMethodsAreKeptAsWritten() throws {
        let crypto = try CryptoAttribute(parsingAttributeValue: "1 AES_CM_128_HMAC_SHA1_80 uri:https://keys.example/1")
        #expect(crypto.keyParameters.first?.method == "uri")
        #expect(crypto.keyParameters.first?.keySalt == "https://keys.example/1")
        #expect(crypto.keyParameters.first?.keySaltBytes == nil)
        #expect(crypto.attributeValue == "1 AES_CM_128_HMAC_SHA1_80 uri:https://keys.example/1")
    }

    @Test func cryptoLinesInADescription() throws {
        let offer = try TestData.description("offers/baresip-srtp-mand.sdp")
        let cryptos = try offer.media[0].cryptos
        #expect(cryptos.map(\.tag) == [1, 2, 3])
        #expect(
            cryptos.map(\.suite) == [
                CryptoSuite(rawValue: "AEAD_AES_256_GCM"), .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32,
            ])
        #expect(cryptos[0].keyParameters.first?.keySaltBytes?.count == 44)
        #expect(cryptos[1].keyParameters.first?.keySaltBytes == Array("abcdefghijklmnopqrstuvwxyz1234".utf8))
    }
}
