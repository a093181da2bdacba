import Foundation
import SwitchboardTesting
import Testing

@testable import Switchboard

/// `CallProviderConfiguration.srtpSuites` in calls between two providers in virtual time: the suites an SDES
/// offer lists and an answer accepts (RFC 4568, RFC 7714 §14.1), and the `use_srtp` profiles a DTLS client
/// offers and a DTLS server picks from (RFC 5764 §4.1.2, RFC 7714 §14.2).
@Suite("SRTP suite preferences in calls", .serialized)
struct SRTPSuiteCallTests {
    /// The suites of the `a=crypto` lines a host sent (the second field of each).
    private func cryptoSuites(_ pair: ICEPair, from host: String) -> [String] {
        pair.attributeValues("crypto", from: host).compactMap { $0.split(separator: " ").dropFirst().first }
            .map(String.init)
    }

    @Test func anSDESCallOnAESGCMKeysBothWays() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpSuites = [.aesGCM128, .aesCM80]
            },
            bob: {
                $0.srtp = .optional
                $0.srtpSuites = [.aesGCM128]
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        #expect(cryptoSuites(pair, from: ICEPair.aliceHost) == ["AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80"])
        #expect(cryptoSuites(pair, from: ICEPair.bobHost) == ["AEAD_AES_128_GCM"])
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.srtpSuite == .aesGCM128)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.srtpSuite == .aesGCM128)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func anSDESAnswerTakesTheFirstOfferedSuiteItAccepts() async throws {
        // Alice offers GCM first; Bob accepts only AES-CM-80, so the call runs on that.
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpSuites = [.aesGCM128, .aesCM32, .aesCM80]
            },
            bob: {
                $0.srtp = .optional
                $0.srtpSuites = [.aesCM80]
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        #expect(cryptoSuites(pair, from: ICEPair.bobHost) == ["AES_CM_128_HMAC_SHA1_80"])
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.srtpSuite == .aesCM80)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.srtpSuite == .aesCM80)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func anSDESOfferWithNoSuiteTheAnswererTakesIsRefused() async throws {
        // The defaults take no AES-GCM over SDES: a GCM-only mandatory offer gets 488.
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpSuites = [.aesGCM128]
            },
            bob: { $0.srtp = .optional })
        defer { pair.close() }
        let uuid = try await pair.aliceController.startCall(to: Handle(type: .generic, value: pair.bobURI))
        let ended = try #require(await pair.aliceDelegate.ended(uuid))
        #expect(ended.statusCode == 488)
        #expect(pair.sipTrace.contains("SIP/2.0 488"))
    }

    @Test func theDTLSServerPicksItsFirstSuiteTheClientOffers() async throws {
        // Alice offers actpass and Bob answers active: Bob is the client, Alice the server. The server's
        // default order would pick AES-GCM; Bob offers only AES-CM-80, so that is the profile.
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
            },
            bob: {
                $0.srtp = .optional
                $0.srtpSuites = [.aesCM80]
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.srtpSuite == .aesCM80)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.srtpSuite == .aesCM80)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func theDTLSServersOrderWinsOverTheClients() async throws {
        // Bob, the client, prefers AES-GCM but offers AES-CM-32 too; Alice, the server, wants AES-CM-32 first.
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
                $0.srtpSuites = [.aesCM32, .aesGCM128]
            },
            bob: {
                $0.srtp = .optional
                $0.srtpSuites = [.aesGCM128, .aesCM32]
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.srtpSuite == .aesCM32)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.srtpSuite == .aesCM32)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func anEmptySuiteListIsAConfigurationError() throws {
        let world = VirtualWorld(seed: 3)
        var configuration = CallProviderConfiguration(srtp: .optional)
        configuration.srtpSuites = []
        #expect(throws: CallError.self) { _ = try world.makeProvider(configuration: configuration, host: "10.0.0.9") }
    }
}
