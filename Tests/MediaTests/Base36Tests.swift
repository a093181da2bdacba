import Testing

@testable import Media

@Suite("Media session: the generated CNAME's base 36")
struct Base36Tests {
    @Test(arguments: [0, 1, 35, 36, 1295, 1296, 0xDEAD_BEEF, UInt64(Int64.max), UInt64.max] as [UInt64])
    func writesWhatStringRadix36Writes(_ value: UInt64) {
        #expect(base36(value) == String(value, radix: 36))
    }

    @Test func aSessionWithoutAConfiguredCNAMEGetsAShortOne() {
        var random = SystemRandomNumberGenerator()
        let session = MediaSession<String>(at: .zero, random: &random)
        #expect(!session.cname.isEmpty && session.cname.count <= 13)
        #expect(session.cname.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) })
    }
}
