import Foundation
import Testing

@testable import Switchboard

/// A `Call` keeps its figures, ICE path and end out of line: they read back as set, a copy changed leaves the
/// original as it was, and all of them back at `nil` leave nothing behind.
@Suite struct CallStorageTests {
    static let call = Call(
        uuid: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), callID: "c1", account: nil,
        direction: .incoming, state: .connected, localHandle: Handle(type: .generic, value: "sip:bob@example.com"),
        remoteHandle: Handle(type: .generic, value: "sip:alice@example.com"), remoteDisplayName: nil,
        isOnHold: false, isRemoteHeld: false, isMuted: false, codec: "PCMU", isSecure: false, quality: nil,
        startedAt: Date(timeIntervalSince1970: 0), connectedAt: nil, endedAt: nil, endDetails: nil)

    @Test func occasionalValuesReadBackAndCopiesStayApart() {
        var call = Self.call
        #expect(call.quality == nil && call.mediaPath == nil && call.endedAt == nil && call.endDetails == nil)
        let quality = CallQuality(packetsSent: 50, packetsReceived: 49, packetsLost: 1, meanOpinionScore: 4.2)
        let path = CallMediaPath(candidateType: .host, localAddress: "192.0.2.1:4000", remoteAddress: "192.0.2.2:5000")
        let details = CallEndDetails(reason: .remoteEnded, statusCode: 200)
        call.quality = quality
        let copy = call
        call.mediaPath = path
        call.endedAt = Date(timeIntervalSince1970: 60)
        call.endDetails = details
        #expect(call.quality == quality)
        #expect(call.mediaPath == path)
        #expect(call.endedAt == Date(timeIntervalSince1970: 60))
        #expect(call.endDetails == details)
        #expect(copy.quality == quality && copy.mediaPath == nil && copy.endedAt == nil && copy.endDetails == nil)
        call.quality = nil
        call.mediaPath = nil
        call.endedAt = nil
        call.endDetails = nil
        #expect(call.quality == nil && call.mediaPath == nil && call.endedAt == nil && call.endDetails == nil)
        #expect(copy.quality == quality)
    }

    @Test func aCallStartsWithTheValuesItWasGiven() {
        let details = CallEndDetails(reason: .failed)
        let call = Call(
            uuid: Self.call.uuid, callID: "c2", account: "a", direction: .outgoing, state: .ended,
            localHandle: Self.call.localHandle, remoteHandle: Self.call.remoteHandle, remoteDisplayName: "A",
            isOnHold: true, isRemoteHeld: true, isMuted: true, codec: nil, isSecure: true, srtpKeying: .sdes,
            quality: CallQuality(packetsSent: 1), startedAt: Date(timeIntervalSince1970: 1),
            connectedAt: Date(timeIntervalSince1970: 2), endedAt: Date(timeIntervalSince1970: 3), endDetails: details)
        #expect(call.quality == CallQuality(packetsSent: 1))
        #expect(call.endedAt == Date(timeIntervalSince1970: 3))
        #expect(call.endDetails == details)
        #expect(call.srtpKeying == .sdes && call.isOnHold && call.isMuted && call.account == "a")
        #expect(call.duration == 1)
    }
}
