import SDP
import Testing

/// The other side of a call, written as text: its descriptions with a growing version.
struct Peer {
    var version: UInt64 = 10

    /// A description from the peer at 198.51.100.7:30000 with `direction` (or none) and `address`.
    mutating func description(_ direction: MediaDirection?, address: String = "198.51.100.7") throws
        -> SessionDescription
    {
        version += 1
        let attribute = direction.map { "a=\($0.rawValue)\n" } ?? ""
        return try sdp(
            """
            v=0
            o=peer 77 \(version) IN IP4 198.51.100.7
            s=-
            c=IN IP4 \(address)
            t=0 0
            m=audio 30000 RTP/AVP 0 101
            a=rtpmap:101 telephone-event/8000
            \(attribute)
            """)
    }
}

@Suite("Hold and resume")
struct HoldTests {
    /// An engine in a call it offered, answered sendrecv.
    static func established() throws -> (OfferAnswer, Peer) {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        _ = try engine.makeOffer()
        _ = try engine.receiveAnswer(try peer.description(.sendrecv))
        return (engine, peer)
    }

    @Test func localHoldAndResume() throws {
        var (engine, peer) = try Self.established()
        let initial = try #require(engine.localDescription?.origin.sessionVersion)

        let hold = try engine.makeHoldOffer()
        #expect(hold.media[0].direction == .sendonly)
        #expect(hold.origin.sessionVersion == initial + 1)
        #expect(hold.origin.sessionID == "1000000000")
        #expect(engine.isLocalHold)
        let held = try engine.receiveAnswer(try peer.description(.recvonly))
        #expect(held.direction == .sendonly)
        #expect(held.isLocalHold)
        #expect(!held.isRemoteHold)

        let resume = try engine.makeResumeOffer()
        #expect(resume.media[0].direction == .sendrecv)
        #expect(resume.origin.sessionVersion == initial + 2)
        #expect(!engine.isLocalHold)
        let resumed = try engine.receiveAnswer(try peer.description(.sendrecv))
        #expect(resumed.direction == .sendrecv)
        #expect(!resumed.isLocalHold)

        // Everything but the direction and version is unchanged.
        var comparable = hold
        comparable.media[0].setDirection(.sendrecv)
        comparable.origin.sessionVersion = resume.origin.sessionVersion
        #expect(comparable == resume)
    }

    @Test func remoteHoldThenLocalHoldIsInactive() throws {
        var (engine, peer) = try Self.established()
        let answer = try engine.answer(try peer.description(.sendonly))
        #expect(answer.sessionDescription.media[0].direction == .recvonly)
        #expect(answer.session.direction == .recvonly)
        #expect(answer.session.isRemoteHold)
        #expect(engine.isRemoteHold)

        let hold = try engine.makeHoldOffer()
        #expect(hold.media[0].direction == .inactive)
        let both = try engine.receiveAnswer(try peer.description(.inactive))
        #expect(both.direction == .inactive)

        // We resume while the peer still holds: we only ask to receive.
        let resume = try engine.makeResumeOffer()
        #expect(resume.media[0].direction == .recvonly)
        _ = try engine.receiveAnswer(try peer.description(.sendonly))

        // The peer resumes.
        let resumed = try engine.answer(try peer.description(.sendrecv))
        #expect(resumed.sessionDescription.media[0].direction == .sendrecv)
        #expect(!resumed.session.isRemoteHold)
        #expect(!engine.isRemoteHold)
    }

    @Test func legacyHoldWithTheUnspecifiedAddress() throws {
        var (engine, peer) = try Self.established()
        let answer = try engine.answer(try peer.description(nil, address: "0.0.0.0"))
        #expect(answer.session.isRemoteHold)
        #expect(answer.session.remoteRTPAddress == nil)
        #expect(answer.session.remoteRTCPAddress == nil)
        #expect(answer.session.direction == .recvonly)
        #expect(answer.sessionDescription.media[0].direction == .recvonly)
        #expect(try engine.makeHoldOffer().media[0].direction == .inactive)
        engine.cancelPendingOffer()

        let inactive = try engine.answer(try peer.description(.sendrecv, address: "0.0.0.0"))
        #expect(inactive.session.direction == .recvonly)
        let resumed = try engine.answer(try peer.description(.sendrecv))
        #expect(resumed.session.remoteRTPAddress?.description == "198.51.100.7:30000")
        #expect(!resumed.session.isRemoteHold)
    }

    @Test func remoteInactiveIsAnsweredInactive() throws {
        var (engine, peer) = try Self.established()
        let answer = try engine.answer(try peer.description(.inactive))
        #expect(answer.sessionDescription.media[0].direction == .inactive)
        #expect(answer.session.isRemoteHold)
    }

    @Test func remoteRecvonlyIsNoHold() throws {
        var (engine, peer) = try Self.established()
        let answer = try engine.answer(try peer.description(.recvonly))
        #expect(answer.sessionDescription.media[0].direction == .sendonly)
        #expect(!answer.session.isRemoteHold)
    }

    @Test func whileWeHoldOurAnswersStaySendonly() throws {
        var (engine, peer) = try Self.established()
        _ = try engine.makeHoldOffer()
        _ = try engine.receiveAnswer(try peer.description(.recvonly))
        let refresh = try engine.answer(try peer.description(.sendrecv))
        #expect(refresh.sessionDescription.media[0].direction == .sendonly)
        #expect(refresh.session.isLocalHold)
        let inactive = try engine.answer(try peer.description(.sendonly))
        #expect(inactive.sessionDescription.media[0].direction == .inactive)
    }

    @Test func aRefusedHoldLeavesTheCallAsItWas() throws {
        var (engine, _) = try Self.established()
        let before = try #require(engine.localDescription)
        let session = engine.session
        let hold = try engine.makeHoldOffer()
        engine.cancelPendingOffer()
        #expect(!engine.isLocalHold)
        #expect(engine.state == .stable)
        #expect(engine.localDescription == before)
        #expect(engine.session == session)
        // The next offer changes the session again: its version is above the refused one's.
        let again = try engine.makeHoldOffer()
        #expect(again.origin.sessionVersion > hold.origin.sessionVersion)
    }

    @Test func sessionLevelDirectionApplies() throws {
        var (engine, _) = try Self.established()
        let offer = try sdp(
            "v=0\no=peer 77 50 IN IP4 198.51.100.7\ns=-\nc=IN IP4 198.51.100.7\nt=0 0\na=sendonly\n"
                + "m=audio 30000 RTP/AVP 0\n")
        let answer = try engine.answer(offer)
        #expect(answer.sessionDescription.media[0].direction == .recvonly)
        #expect(answer.session.isRemoteHold)
    }
}
