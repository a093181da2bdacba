import Foundation
import SDP
import Testing

/// A negotiated session keeps its SRTP and WebRTC values out of line: they read back as set, and set back to
/// their defaults the session equals (and hashes as) the one it was.
@Suite struct NegotiatedSessionExtrasTests {
    @Test func sessionExtrasSetBackToTheirDefaultsCompareEqual() throws {
        var engine = OfferAnswer.testing(policy: .mandatory)
        let answer = try engine.answer(try TestData.description("offers/baresip-srtp-mand.sdp"))
        var session = answer.session
        let srtp = try #require(session.srtp)
        session.srtp = nil
        #expect(!session.isSecure)
        #expect(session != answer.session)
        session.srtp = srtp
        session.mediaID = "0"
        session.mediaID = nil
        #expect(session == answer.session)
        #expect(session.hashValue == answer.session.hashValue)
        session.isBundled = true
        session.midExtensionID = 3
        #expect(session.isBundled && session.midExtensionID == 3 && session.srtp == srtp)
    }
}
