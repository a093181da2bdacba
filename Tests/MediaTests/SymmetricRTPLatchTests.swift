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
