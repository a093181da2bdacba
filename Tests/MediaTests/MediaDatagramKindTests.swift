import Media
import Testing

@Suite("RFC 7983 demultiplexing")
struct MediaDatagramKindTests {
    /// Every boundary of RFC 7983 §7's ranges, with a second byte of an RTP payload type.
    static let firstBytes: [(UInt8, MediaDatagramKind)] = [
        (0, .stun), (3, .stun), (4, .unknown), (15, .unknown), (16, .zrtp), (19, .zrtp), (20, .dtls), (63, .dtls),
        (64, .turnChannelData), (79, .turnChannelData), (80, .unknown), (127, .unknown), (128, .rtp), (191, .rtp),
        (192, .unknown), (255, .unknown),
    ]

    @Test(arguments: firstBytes)
    func theFirstByteChoosesTheProtocol(first: UInt8, kind: MediaDatagramKind) {
        #expect(MediaDatagramKind(classifying: [first, 0x00, 0x01, 0x02]) == kind)
    }

    /// RTP against RTCP by the second byte (RFC 5761 §4): 192...223 is RTCP whatever the marker bit says.
    static let secondBytes: [(UInt8, MediaDatagramKind)] = [
        (0, .rtp), (127, .rtp), (128, .rtp), (191, .rtp), (192, .rtcp), (200, .rtcp), (201, .rtcp), (223, .rtcp),
        (224, .rtp), (255, .rtp),
    ]

    @Test(arguments: secondBytes)
    func theSecondByteSplitsRTPFromRTCP(second: UInt8, kind: MediaDatagramKind) {
        #expect(MediaDatagramKind(classifying: [0x80, second]) == kind)
        #expect(MediaDatagramKind(classifying: [0xBF, second]) == kind)
    }

    @Test func shortDatagramsAreUnknownExceptForTheirFirstByte() {
        #expect(MediaDatagramKind(classifying: [UInt8]()) == .unknown)
        #expect(MediaDatagramKind(classifying: [0x80]) == .unknown)
        #expect(MediaDatagramKind(classifying: [0x01]) == .stun)
    }

    @Test func theCoarseViewAgrees() {
        for first in UInt8.min...UInt8.max {
            for second: UInt8 in [0, 200] {
                let fine = MediaDatagramKind(classifying: [first, second])
                let coarse = MediaPacketKind(classifying: [first, second])
                switch fine {
                case .rtp: #expect(coarse == .rtp)
                case .rtcp: #expect(coarse == .rtcp)
                case .stun: #expect(coarse == .stun)
                case .dtls: #expect(coarse == .dtls)
                case .zrtp, .turnChannelData, .unknown: #expect(coarse == .unknown)
                }
            }
        }
    }
}
