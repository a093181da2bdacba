import Testing

@testable import SDP
@testable import Switchboard

/// Each session's offer/answer engine gets its configuration from `SessionSetup`: sessions made from the same
/// terms share one storage (its allocation and session-line text) and differ only in their RTP port, and a
/// configuration taken from that cache is the one a fresh setup makes.
@Suite("SessionSetup: offer/answer configurations")
struct SessionSetupConfigurationTests {
    private static func setup(_ configure: (inout CallProviderConfiguration) -> Void = { _ in }) -> SessionSetup {
        var configuration = CallProviderConfiguration()
        configure(&configuration)
        return SessionSetup(settings: .init(configuration), random: .system)
    }

    @Test func sessionsMadeFromTheSameTermsShareOneStorageWithTheirOwnPorts() {
        var setup = Self.setup()
        let first = setup.offerAnswer(LocalMedia(host: "10.0.0.1", port: 40_000)).configuration
        let second = setup.offerAnswer(LocalMedia(host: "10.0.0.1", port: 40_002)).configuration
        #expect(first.rtpPort == 40_000)
        #expect(second.rtpPort == 40_002)
        #expect(first.storage === second.storage)
        #expect(first != second)

        let elsewhere = setup.offerAnswer(LocalMedia(host: "10.0.0.2", port: 40_004)).configuration
        #expect(elsewhere.address == "10.0.0.2")
        #expect(elsewhere.storage !== second.storage)
        let fewerCodecs = setup.offerAnswer(LocalMedia(host: "10.0.0.2", port: 40_006), codecs: [.pcmu]).configuration
        #expect(fewerCodecs.codecs.map(\.encodingName) == ["PCMU", "telephone-event"])
        let secure = setup.offerAnswer(LocalMedia(host: "10.0.0.2", port: 40_008), srtp: .mandatory).configuration
        #expect(secure.srtpPolicy == .mandatory)
        let iceAttributes = [Attribute("ice-ufrag", "abcd")]
        let withICE = setup.offerAnswer(LocalMedia(host: "10.0.0.2", port: 40_010, attributes: iceAttributes))
        #expect(withICE.configuration.mediaAttributes == iceAttributes)
        let withoutICE = setup.offerAnswer(LocalMedia(host: "10.0.0.2", port: 40_012))
        #expect(withoutICE.configuration.mediaAttributes.isEmpty)
    }

    @Test(arguments: [Switchboard.SRTPPolicy.off, .optional, .mandatory])
    func aConfigurationFromTheCacheIsTheOneAFreshSetupMakes(_ policy: Switchboard.SRTPPolicy) {
        var warm = Self.setup { $0.srtp = policy }
        _ = warm.offerAnswer(LocalMedia(host: "192.0.2.7", port: 41_000))
        let cached = warm.offerAnswer(LocalMedia(host: "192.0.2.7", port: 41_002)).configuration
        var fresh = Self.setup { $0.srtp = policy }
        let made = fresh.offerAnswer(LocalMedia(host: "192.0.2.7", port: 41_002)).configuration
        #expect(cached == made)
        #expect(cached.storage !== made.storage)
    }

    @Test func changedSettingsAreNotServedFromTheCache() {
        var setup = Self.setup()
        _ = setup.offerAnswer(LocalMedia(host: "10.0.0.1", port: 40_000))
        setup.settings.offersRTCPMux = !setup.settings.offersRTCPMux
        let after = setup.offerAnswer(LocalMedia(host: "10.0.0.1", port: 40_002)).configuration
        #expect(after.isRTCPMuxEnabled == setup.settings.offersRTCPMux)
    }
}
