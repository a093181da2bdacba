import Media
import SDP
import Testing

/// The MID RTP header extension (RFC 9143 §14, RFC 8285 §4.2) on every RTP packet once a BUNDLE negotiated it.
@Suite("Media: the MID header extension in a BUNDLE")
struct MediaSessionMIDExtensionTests {
    /// The RTP packets Alice sent, parsed.
    private func alicesPackets(_ call: Call) throws -> [RTPPacket] {
        try call.delivered(from: Call.alice, .rtp).map { try RTPPacket(parsing: $0.bytes) }
    }

    @Test func everyPacketCarriesTheMIDAndThePeerStillPlaysIt() throws {
        var negotiation = Negotiation()
        var negotiated = try negotiation.negotiate()
        negotiated.alice.isBundled = true
        negotiated.alice.mediaID = "audio0"
        negotiated.alice.midExtensionID = 4
        var call = try Call(negotiation)
        try call.configure(Call.alice, negotiated.alice)
        call.network.run(until: .seconds(2))
        let packets = try alicesPackets(call)
        #expect(packets.count >= 90)
        #expect(packets.allSatisfy { $0.headerExtension?.mid(identifier: 4) == "audio0" })
        #expect(call.bob.audio.decoded.count >= 90)
    }

    @Test func withoutABundleOrAFittingIdentifierNoExtensionGoes() throws {
        for (bundled, identifier) in [(false, UInt16(4)), (true, 15)] {
            var negotiation = Negotiation()
            var negotiated = try negotiation.negotiate()
            negotiated.alice.isBundled = bundled
            negotiated.alice.mediaID = "0"
            negotiated.alice.midExtensionID = identifier
            var call = try Call(negotiation)
            try call.configure(Call.alice, negotiated.alice)
            call.network.run(until: .seconds(1))
            let packets = try alicesPackets(call)
            #expect(!packets.isEmpty)
            #expect(packets.allSatisfy { $0.headerExtension == nil })
        }
    }
}
