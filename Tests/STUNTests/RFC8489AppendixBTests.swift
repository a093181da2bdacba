import STUN
import Testing

/// RFC 8489 Appendix B.1: a request with long-term credentials, SHA-256 throughout.
///
/// The vector as published does not decode: its header length counts the header, and it lacks the
/// PASSWORD-ALGORITHM that a SHA-256 key requires. Erratum 6268 corrects both and recomputes the HMAC. These
/// tests check the corrected message: the USERHASH value (SHA-256 of `username:realm`), the SHA-256 long-term
/// key derivation (§9.2.2), MESSAGE-INTEGRITY-SHA256 over it, the decoded NONCE, REALM and PASSWORD-ALGORITHM,
/// and a byte-exact re-encoding; and that the published form is refused with the fault it has.
@Suite("RFC 8489 Appendix B test vector")
struct RFC8489AppendixBTests {
    let realm = "example.org"

    @Test func correctedRequestVerifiesWithSHA256Key() throws {
        let received = try STUNReceivedMessage(decoding: Vectors.sha256Request)
        let message = received.message
        #expect(message.messageClass == .request)
        #expect(message.method == .binding)
        #expect(message.nonce == "obMatJos2AAACf//499k954d6OL34oL9FSTvy64sA")
        #expect(message.realm == realm)
        #expect(message.passwordAlgorithm == .sha256)
        let userhash = try #require(STUNAttribute.userhash(username: Vectors.longTermUsername, realm: realm))
        #expect(message[.userhash] == userhash.value)
        let key = try #require(
            STUNKey.longTerm(
                username: Vectors.longTermUsername, realm: realm, password: Vectors.longTermPassword,
                algorithm: .sha256))
        #expect(received.hasMessageIntegritySHA256)
        #expect(!received.hasMessageIntegrity)
        #expect(received.checkMessageIntegritySHA256(with: key) == true)
        #expect(received.isAuthentic(with: key))
        let md5Key = try #require(
            STUNKey.longTerm(username: Vectors.longTermUsername, realm: realm, password: Vectors.longTermPassword))
        #expect(!received.isAuthentic(with: md5Key))
        let encoded = message.encoded(integrity: STUNIntegrity(key: key, sha1: false, sha256: true))
        #expect(encoded == Vectors.sha256Request)
    }

    @Test func publishedRequestIsRefusedForItsLength() {
        #expect(throws: STUNDecodingError.self) { try STUNReceivedMessage(decoding: Vectors.sha256RequestAsPublished) }
        do {
            _ = try STUNReceivedMessage(decoding: Vectors.sha256RequestAsPublished)
        } catch {
            #expect(error.code == .lengthMismatch)
        }
    }
}
