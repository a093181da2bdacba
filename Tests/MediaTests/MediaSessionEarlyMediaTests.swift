import Media
import Testing

/// Early media and the app's audio activation as two switches: the signalling side turns early media on at a
/// 183 with SDP and off at the 2xx, the app activates its audio whenever it likes.
@Suite("Media session: early media and audio activation")
struct MediaSessionEarlyMediaTests {
    /// A call whose Bob talks while Alice waits for her app's activation.
    static func awaitingAlice() throws -> Call {
        var call = try Call(activity: .awaitingActivation)
        call.bob.session.setActivity(.active)
        return call
    }

    @Test func anActivationDuringEarlyMediaTakesEffectAtTheAnswer() throws {
        var call = try Self.awaitingAlice()
        call.alice.session.setEarlyMedia(true)
        #expect(call.alice.session.isEarlyMedia && call.alice.session.activity == .earlyMedia)
        call.network.run(until: .seconds(1))
        #expect(call.alice.audio.hearsTone(440))
        // The app activates audio before the answer (CallKit does for outgoing calls): still receive-only.
        call.alice.session.setAudioActive(true)
        #expect(call.alice.session.activity == .earlyMedia)
        call.network.run(until: .seconds(2))
        #expect(call.alice.session.statistics.packetsSent == 0 && call.alice.audio.captures == 0)
        #expect(call.delivered(from: Call.alice, .rtp).isEmpty)
        // The 2xx: both ways from then on.
        call.alice.session.setEarlyMedia(false)
        #expect(!call.alice.session.isEarlyMedia && call.alice.session.activity == .active)
        call.network.run(until: .seconds(4))
        #expect(call.bob.audio.hearsTone(440))
        #expect(call.alice.session.statistics.packetsSent == 100)
    }

    @Test func earlyMediaEndingWithoutActivationSendsSilenceAndPlaysNothing() throws {
        var call = try Self.awaitingAlice()
        call.alice.session.setEarlyMedia(true)
        call.network.run(until: .seconds(1))
        let played = call.alice.audio.played.count
        #expect(played == 51)
        call.alice.session.setEarlyMedia(false)
        #expect(call.alice.session.activity == .awaitingActivation)
        call.network.run(until: .seconds(2))
        #expect(call.alice.audio.played.count == played && call.alice.audio.captures == 0)
        #expect(call.alice.session.statistics.packetsSent == 50)
        #expect(call.alice.audio.sent.allSatisfy { $0.origin == .silence })
    }

    @Test func aDeactivationOutsideEarlyMediaSendsSilence() throws {
        var call = try Call()
        call.alice.session.setAudioActive(false)
        #expect(call.alice.session.activity == .awaitingActivation)
        call.alice.session.setAudioActive(true)
        #expect(call.alice.session.activity == .active)
        call.alice.session.setEarlyMedia(false)
        #expect(call.alice.session.activity == .active, "no early media to end")
    }

    @Test func settingTheActivityEndsEarlyMedia() throws {
        var call = try Self.awaitingAlice()
        call.alice.session.setEarlyMedia(true)
        call.alice.session.setActivity(.active)
        #expect(!call.alice.session.isEarlyMedia)
        call.alice.session.setEarlyMedia(false)
        #expect(call.alice.session.activity == .active)
        call.alice.session.setEarlyMedia(true)
        call.alice.session.setSending(.silence)
        #expect(!call.alice.session.isEarlyMedia)
        #expect(call.alice.session.activity == MediaActivity(sending: .silence, isPlayingOut: true))
    }
}
