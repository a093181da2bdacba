import SDP
import Testing

/// The kinds of audio offer an SRTP policy meets.
enum OfferKind: String, Sendable, CaseIterable {
    case plain = "RTP/AVP without crypto"
    case plainWithCrypto = "RTP/AVP with crypto"
    case secure = "RTP/SAVP with crypto"
    case secureWithoutCrypto = "RTP/SAVP without crypto"
    case secureWithUnsupportedSuite = "RTP/SAVP with only AES-256-GCM"

    static let key = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVoxMjM0"

    var media: String {
        let cryptos =
            "a=crypto:5 AEAD_AES_256_GCM inline:ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXowMTIzNDU2Nzg5QUJDREVGR0hJSks=\n"
            + "a=crypto:6 AES_CM_128_HMAC_SHA1_32 inline:\(OfferKind.key)|2^20\n"
            + "a=crypto:7 AES_CM_128_HMAC_SHA1_80 inline:\(OfferKind.key)\n"
        switch self {
        case .plain: return "m=audio 5000 RTP/AVP 0\n"
        case .plainWithCrypto: return "m=audio 5000 RTP/AVP 0\n" + cryptos
        case .secure: return "m=audio 5000 RTP/SAVP 0\n" + cryptos
        case .secureWithoutCrypto: return "m=audio 5000 RTP/SAVP 0\n"
        case .secureWithUnsupportedSuite: return "m=audio 5000 RTP/SAVP 0\n" + cryptos.split(separator: "\n")[0] + "\n"
        }
    }
}

/// What answering gives: plain RTP, SRTP, or a 488 with a code.
enum Outcome: Sendable, Equatable {
    case plain
    case srtp
    case refused(SDPError.Code)
}

@Suite("SRTP policies")
struct SRTPPolicyTests {
    static let table: [(SRTPPolicy, OfferKind, Outcome)] = [
        (.off, .plain, .plain),
        (.off, .plainWithCrypto, .plain),
        (.off, .secure, .refused(.unsupportedTransport)),
        (.off, .secureWithoutCrypto, .refused(.unsupportedTransport)),
        (.off, .secureWithUnsupportedSuite, .refused(.unsupportedTransport)),
        (.optional, .plain, .plain),
        (.optional, .plainWithCrypto, .srtp),
        (.optional, .secure, .srtp),
        (.optional, .secureWithoutCrypto, .refused(.srtpRequired)),
        (.optional, .secureWithUnsupportedSuite, .refused(.noAcceptableCrypto)),
        (.mandatory, .plain, .refused(.srtpRequired)),
        (.mandatory, .plainWithCrypto, .srtp),
        (.mandatory, .secure, .srtp),
        (.mandatory, .secureWithoutCrypto, .refused(.srtpRequired)),
        (.mandatory, .secureWithUnsupportedSuite, .refused(.noAcceptableCrypto)),
    ]

    @Test func theTableCoversEveryCombination() {
        for policy in SRTPPolicy.allCases {
            for kind in OfferKind.allCases {
                #expect(Self.table.contains { $0.0 == policy && $0.1 == kind }, "\(policy) \(kind.rawValue)")
            }
        }
    }

    @Test("answering under each policy", arguments: table)
    func answering(_ policy: SRTPPolicy, _ kind: OfferKind, _ expected: Outcome) throws {
        var engine = OfferAnswer.testing(policy: policy)
        let offer = try sdp(Malformed.head + kind.media)
        switch expected {
        case .refused(let code):
            let error = try #require(throws: SDPError.self) { try engine.receiveOffer(offer) }
            #expect(error.code == code)
            #expect(error.status == 488)
        case .plain:
            let answer = try engine.answer(offer)
            #expect(answer.session.srtp == nil)
            #expect(answer.sessionDescription.media[0].attributes(named: "crypto").isEmpty)
            #expect(answer.sessionDescription.media[0].transport == offer.media[0].transport)
        case .srtp:
            let answer = try engine.answer(offer)
            let srtp = try #require(answer.session.srtp)
            // The first offered suite we support: the 32-bit one with tag 6 (GCM is skipped).
            #expect(srtp.suite == .aesCM128HMACSHA1_32)
            #expect(srtp.tag == 6)
            #expect(srtp.remoteKeySalt == Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ1234".utf8))
            #expect(srtp.remoteLifetime == .powerOfTwo(20))
            #expect(srtp.localKeySalt == Array(1...30))
            let media = answer.sessionDescription.media[0]
            #expect(media.transport == offer.media[0].transport)
            #expect(
                media.attributes(named: "crypto").map(\.value) == ["6 AES_CM_128_HMAC_SHA1_32 inline:\(patternKey(1))"])
        }
    }

    @Test func theAnswererFollowsTheOfferersSuiteOrder() throws {
        var engine = OfferAnswer.testing(policy: .mandatory)
        let answer = try engine.answer(try TestData.description("offers/baresip-srtp-mand.sdp"))
        #expect(answer.sessionDescription.description == TestData.text("answers/baresip-srtp-mandatory.sdp"))
        #expect(answer.session.srtp?.suite == .aesCM128HMACSHA1_80)
        #expect(answer.session.srtp?.tag == 2)
        var only32 = OfferAnswer.testing(policy: .optional) { $0.cryptoSuites = [.aesCM128HMACSHA1_32] }
        #expect(try only32.answer(try TestData.description("offers/baresip-srtp-mand.sdp")).session.srtp?.tag == 3)
    }

    @Test func cryptoLinesWeCannotUseAreSkipped() throws {
        let key = OfferKind.key
        let media =
            "m=audio 5000 RTP/SAVP 0\n"
            + "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key) UNENCRYPTED_SRTP\n"
            + "a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:\(key);inline:\(key)\n"
            + "a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:QUJD\n"
            + "a=crypto:4 AES_CM_128_HMAC_SHA1_80 inline:bad*key\n"
            + "a=crypto:5 AES_CM_128_HMAC_SHA1_80 inline:\(key)|2^20|1:4\n"
        var engine = OfferAnswer.testing(policy: .mandatory)
        let srtp = try #require(try engine.answer(try sdp(Malformed.head + media)).session.srtp)
        #expect(srtp.tag == 5)
        #expect(srtp.remoteMKI == .init(value: 1, length: 4))
    }

    @Test(
        "answers to our SRTP offers",
        arguments: [
            (
                SRTPPolicy.mandatory, "RTP/SAVP", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(OfferKind.key)\n",
                Outcome.srtp
            ),
            (.mandatory, "RTP/SAVP", "", .refused(.srtpRequired)),
            (
                .mandatory, "RTP/SAVP", "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:\(OfferKind.key)\n",
                .refused(.noAcceptableCrypto)
            ),
            (
                .mandatory, "RTP/SAVP", "a=crypto:9 AES_CM_128_HMAC_SHA1_80 inline:\(OfferKind.key)\n",
                .refused(.noAcceptableCrypto)
            ),
            (.optional, "RTP/AVP", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(OfferKind.key)\n", .srtp),
            (.optional, "RTP/AVP", "", .plain),
            (.off, "RTP/AVP", "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(OfferKind.key)\n", .plain),
        ])
    func answerToOurOffer(_ policy: SRTPPolicy, _ transport: String, _ crypto: String, _ expected: Outcome) throws {
        var engine = OfferAnswer.testing(policy: policy)
        let offer = try engine.makeOffer()
        let answer = try sdp(Malformed.head + "m=audio 30000 \(transport) 0\n" + crypto)
        switch expected {
        case .refused(let code):
            #expect { try engine.receiveAnswer(answer) } throws: { ($0 as? SDPError)?.code == code }
        case .plain:
            #expect(try engine.receiveAnswer(answer).srtp == nil)
        case .srtp:
            let srtp = try #require(try engine.receiveAnswer(answer).srtp)
            #expect(srtp.suite == .aesCM128HMACSHA1_80)
            #expect(srtp.tag == 1)
            #expect(srtp.remoteKeySalt == Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ1234".utf8))
            #expect(srtp.localKeySalt == (try offer.media[0].cryptos.first?.keyParameters.first?.keySaltBytes))
        }
    }

    @Test func keysAreReusedAcrossOffersAndAnswers() throws {
        var engine = OfferAnswer.testing(policy: .mandatory)
        let first = try engine.makeOffer()
        _ = try engine.receiveAnswer(
            try sdp(
                Malformed.head
                    + "m=audio 30000 RTP/SAVP 0\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(OfferKind.key)\n"))
        let second = try engine.makeOffer()
        #expect(try second.media[0].cryptos == first.media[0].cryptos)
        #expect(second.origin.sessionVersion == first.origin.sessionVersion)
    }
}
