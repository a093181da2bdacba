import Media
import Testing

@Suite("Symmetric RTP latch (RFC 4961)")
struct SymmetricRTPLatchTests {
    static func at(_ milliseconds: Int64) -> MediaInstant { MediaInstant(nanoseconds: milliseconds * 1_000_000) }

    @Test func latchesOnTheFirstPacketAndRefusesOthersWhileItIsAlive() {
        var latch = SymmetricRTPLatch<String>(signalledAddress: "sdp")
        #expect(latch.destination == "sdp")
        #expect(latch.authenticatedPacket(from: "nat", at: Self.at(0)) == .latched("nat"))
        #expect(latch.destination == "nat")
        #expect(latch.authenticatedPacket(from: "nat", at: Self.at(20)) == .accept)
        #expect(latch.authenticatedPacket(from: "other", at: Self.at(1000)) == .reject)
        #expect(latch.authenticatedPacket(from: "other", at: Self.at(2019)) == .reject)
        #expect(latch.rejectedPackets == 2)
        #expect(latch.relatches == 0)
    }

    @Test func anotherAddressTakesOverAfterTheSilence() {
        var latch = SymmetricRTPLatch<String>(signalledAddress: "sdp", relatchAfter: .milliseconds(500))
        #expect(latch.relatchAfter == .milliseconds(500))
        _ = latch.authenticatedPacket(from: "a", at: Self.at(0))
        #expect(latch.authenticatedPacket(from: "b", at: Self.at(499)) == .reject)
        #expect(latch.authenticatedPacket(from: "b", at: Self.at(500)) == .latched("b"))
        #expect(latch.destination == "b")
        #expect(latch.relatches == 1)
        #expect(latch.rejectedPackets == 1)
    }

    @Test func withoutARelatchTimeTheLatchNeverMoves() {
        var latch = SymmetricRTPLatch<String>(signalledAddress: nil, relatchAfter: nil)
        #expect(latch.relatchAfter == nil)
        #expect(latch.destination == nil)
        _ = latch.authenticatedPacket(from: "a", at: Self.at(0))
        #expect(latch.authenticatedPacket(from: "b", at: Self.at(3_600_000)) == .reject)
        latch.relatchAfter = .seconds(1)
        #expect(latch.relatchAfter == .seconds(1))
        #expect(latch.authenticatedPacket(from: "b", at: Self.at(3_600_000)) == .latched("b"))
    }

    @Test func aResetStartsOverWithTheNewAddress() {
        var latch = SymmetricRTPLatch<String>(signalledAddress: "old")
        _ = latch.authenticatedPacket(from: "a", at: Self.at(0))
        latch.reset(signalledAddress: "new")
        #expect(latch.destination == "new")
        #expect(latch.latchedAddress == nil)
        #expect(latch.authenticatedPacket(from: "b", at: Self.at(10)) == .latched("b"))
        #expect(latch.relatches == 0)
    }
}

extension SymmetricRTPLatchTests {
    /// A port's last call may leave a peer that never heard the hang-up still sending: its packets, if they
    /// come first, latch the next call on the port, whose own peer then sends from the SDP's address.
    @Test func theSignalledAddressTakesOverFromAStalePeerAtOnce() {
        var latch = SymmetricRTPLatch<String>(signalledAddress: "sdp")
        #expect(latch.authenticatedPacket(from: "stale", at: Self.at(0)) == .latched("stale"))
        #expect(latch.authenticatedPacket(from: "sdp", at: Self.at(20)) == .latched("sdp"))
        #expect(latch.destination == "sdp")
        // The stale peer is refused from then on, while the SDP's address is alive.
        #expect(latch.authenticatedPacket(from: "stale", at: Self.at(40)) == .reject)
        #expect(latch.authenticatedPacket(from: "sdp", at: Self.at(60)) == .accept)
        #expect(latch.relatches == 1)
        // A latch that never moves keeps its first address.
        var fixed = SymmetricRTPLatch<String>(signalledAddress: "sdp", relatchAfter: nil)
        _ = fixed.authenticatedPacket(from: "stale", at: Self.at(0))
        #expect(fixed.authenticatedPacket(from: "sdp", at: Self.at(20)) == .reject)
    }
}
