import DTLS
import Media
import SDP
import Testing

@testable import Switchboard

/// Which negotiations name a stream's DTLS association again (RFC 8842 §5): the same tls-ids and role keep
/// it; a new tls-id on either side, or another role, makes a new one.
@Suite("DTLS associations of a stream")
struct DTLSAssociationTests {
    static let identity = Result { () throws(DTLSError) in try DTLSIdentity.generate() }
    static let ours = TLSID("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
    static let theirs = TLSID("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
    static let other = TLSID("cccccccccccccccccccccccccccccccccccccccccccc")

    private func association(role: DTLSRole, named: Bool = true) throws -> DTLSAssociation {
        let engine = try DTLSEngine(configuration: .init(role: role, identity: try Self.identity.get()))
        return DTLSAssociation(engine: engine, role: role, tlsIDs: named ? (Self.ours, Self.theirs) : nil)
    }

    private func parameters(_ setup: SetupRole, local: TLSID = ours, remote: TLSID? = theirs)
        -> NegotiatedSession.DTLSParameters
    {
        NegotiatedSession.DTLSParameters(setup: setup, remoteFingerprints: [], localTLSID: local, remoteTLSID: remote)
    }

    @Test func theSameTLSIDsAndRoleKeepTheAssociation() throws {
        let client = try association(role: .client)
        #expect(client.isNamed(by: parameters(.active)))
        // A peer that stopped sending tls-ids names it by ours.
        #expect(client.isNamed(by: parameters(.active, remote: nil)))
    }

    @Test func aNewTLSIDOrRoleMakesANewAssociation() throws {
        let client = try association(role: .client)
        #expect(!client.isNamed(by: parameters(.active, local: Self.other)))
        #expect(!client.isNamed(by: parameters(.active, remote: Self.other)))
        #expect(!client.isNamed(by: parameters(.passive)))
    }

    @Test func aServerStartedBeforeTheAnswerIsAdoptedOnlyAsAServer() throws {
        let early = try association(role: .server, named: false)
        #expect(early.isNamed(by: parameters(.passive)))
        #expect(!early.isNamed(by: parameters(.active)))
    }
    /// A keyed stream holds a new association's ClientHello for the negotiation that names it.
    @Test func aClientHelloIsToldFromOtherRecords() throws {
        let identity = try Self.identity.get()
        let client = try DTLSEngine(configuration: .init(role: .client, identity: identity))
        let server = try DTLSEngine(configuration: .init(role: .server, identity: identity))
        let hello = try #require(
            client.start(at: .zero).compactMap { if case .send(let b) = $0 { b } else { nil } }.first)
        #expect(MediaStream.isClientHello(hello))
        let reply = try server.receive(hello, at: .zero).compactMap { if case .send(let b) = $0 { b } else { nil } }
        #expect(!reply.isEmpty && !reply.contains { MediaStream.isClientHello($0) })
        #expect(!MediaStream.isClientHello([22, 254, 253, 0, 1]))
    }
}
