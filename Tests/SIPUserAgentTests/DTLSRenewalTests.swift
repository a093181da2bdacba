import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 8842 §5.2: this side asks for a new DTLS association with a re-offer carrying a new tls-id; a session
/// that cannot re-offer now refuses at once and sends nothing.
@Suite struct DTLSRenewalTests {
    /// Alice and Bob offer and accept DTLS-SRTP; the call is up.
    private func dtlsCall(configure: (Harness) -> Void = { _ in }) -> Harness {
        Harness.connected { net in
            for (name, byte) in [("alice", UInt8(0xA1)), ("bob", 0xB0)] {
                net[name].media.srtpPolicy = .mandatory
                net[name].media.keying = .dtls
                net[name].media.dtlsFingerprints = [
                    Fingerprint(hashFunction: "sha-256", bytes: .init(repeating: byte, count: 32))
                ]
            }
            configure(net)
        }
    }

    /// `name`'s session asks for a new association; the refusal, if any.
    private func renew(_ net: Harness, _ name: String = "alice") -> ReofferError? {
        var refusal: ReofferError?
        net.command(name) { session in
            do throws(ReofferError) {
                return try session.renewDTLSAssociation()
            } catch {
                refusal = error
                return []
            }
        }
        return refusal
    }

    private func tlsID(_ request: SIPRequest?) -> String? {
        request?.bodyText.split(separator: "\r\n").first { $0.hasPrefix("a=tls-id:") }.map(String.init)
    }

    @Test func aRenewalReoffersWithANewTLSIDAndTheAnswerNamesANewAssociation() throws {
        let net = dtlsCall()
        let before = try #require(net["alice"].call?.negotiatedSession?.dtls)
        #expect(renew(net) == nil)
        net.run()
        let reinvite = try #require(net["alice"].sent(.invite).last)
        #expect(net.count(.invite, from: "alice") == 2)
        #expect(reinvite.headerFields[.cseq] == "2 INVITE")
        #expect(reinvite.bodyText.contains("a=setup:actpass"))
        #expect(tlsID(reinvite) != tlsID(net["alice"].sent(.invite).first))
        let after = try #require(net["alice"].call?.negotiatedSession?.dtls)
        #expect(after.localTLSID != before.localTLSID && after.remoteTLSID != before.remoteTLSID)
        #expect(after.setup == .passive)
        #expect(net["bob"].call?.negotiatedSession?.dtls?.localTLSID == after.remoteTLSID)
        #expect(net["alice"].names().last == "media updated")
    }

    @Test func aSessionWithoutDTLSRefusesAndSendsNothing() throws {
        let net = Harness.connected()
        #expect(renew(net) == .noDTLSAssociation)
        net.run()
        #expect(net.count(.invite, from: "alice") == 1)
    }

    @Test func aRenewalWhileAnOfferIsOutOrBeforeTheCallIsUpIsRefused() throws {
        let net = dtlsCall()
        net.command("alice") { $0.hold() }
        var session = try #require(net["alice"].call)
        #expect(throws: ReofferError.offerInProgress) { try session.renewDTLSAssociation() }
        net.run()
        #expect(net.count(.invite, from: "alice") == 2)
        // A call still ringing cannot re-offer either.
        let ringing = Harness("alice", "bob")
        ringing.call(from: "alice", to: "bob")
        ringing.run()
        var early = try #require(ringing["alice"].call)
        #expect(throws: ReofferError.notConfirmed) { try early.renewDTLSAssociation() }
    }

    @Test func aRefusedRenewalLeavesTheAssociationInForce() throws {
        let net = dtlsCall { $0["bob"].configuration.answersOffersAutomatically = false }
        let before = try #require(net["alice"].call?.negotiatedSession?.dtls)
        #expect(renew(net) == nil)
        net.run()
        net.command("bob") { $0.rejectOffer(status: 488) }
        net.run()
        #expect(net["alice"].names().last == "offer rejected 488")
        #expect(net["alice"].call?.negotiatedSession?.dtls == before)
        // The next re-offer names the association in force again.
        net.command("alice") { $0.hold() }
        net.run()
        net.command("bob") { $0.answerOffer() }
        net.run()
        let hold = try #require(net["alice"].sent(.invite).last)
        #expect(tlsID(hold) == "a=tls-id:\(before.localTLSID.value)")
        #expect(net["alice"].call?.negotiatedSession?.dtls?.localTLSID == before.localTLSID)
        #expect(net["bob"].call?.negotiatedSession?.dtls?.localTLSID == before.remoteTLSID)
    }
}
