import SIPMessage
import Testing

/// Setting `tag` on an address without one appends `;tag=` to its own bytes; every other case rebuilds the
/// value. Either way the written value must read back with the tag and everything else unchanged.
@Suite struct NameAddressTagTests {
    /// Checks that `address` with `tag` set reads, and parses back from its wire form, as expected.
    static func expectTagged(_ address: NameAddress, _ tag: String?, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        var tagged = address
        tagged.tag = tag
        let reparsed = try NameAddress(tagged.description)
        for value in [tagged, reparsed] {
            #expect(value.tag == tag, sourceLocation: sourceLocation)
            #expect(value.tagBytes.map { String(decoding: $0, as: UTF8.self) } == tag, sourceLocation: sourceLocation)
            #expect(value.uri == address.uri, sourceLocation: sourceLocation)
            #expect(value.displayName == address.displayName, sourceLocation: sourceLocation)
            let others = value.parameters.filter { $0.name.lowercased() != "tag" }.map {
                "\($0.name)=\($0.value ?? "")"
            }
            let before = address.parameters.filter { $0.name.lowercased() != "tag" }.map {
                "\($0.name)=\($0.value ?? "")"
            }
            #expect(others == before, sourceLocation: sourceLocation)
            #expect(value.parameters.filter { $0.name.lowercased() == "tag" }.count == (tag == nil ? 0 : 1))
        }
    }

    @Test func builtAddressesTakeATag() throws {
        try Self.expectTagged(NameAddress(displayName: "Alice", uri: try URI("sip:alice@example.com")), "a6c85cf")
        try Self.expectTagged(NameAddress(uri: try URI("sip:alice@example.com;transport=tcp")), "1928301774")
        try Self.expectTagged(
            NameAddress(uri: try URI("tel:+15551234567"), parameters: [Parameter("x", "1")]), "t-1.2_3!~*'+%`")
    }

    @Test func parsedAddressesTakeATag() throws {
        try Self.expectTagged(try NameAddress("\"Bob B\" <sip:bob@b.example.com>;x=1"), "z9")
        try Self.expectTagged(try NameAddress("sip:carol@c.example.com"), "z9")
        try Self.expectTagged(try NameAddress("Carol <sips:carol@c.example.com:5061>;lr"), "z9")
    }

    @Test func addressesWithATagOrAFlagChangeIt() throws {
        try Self.expectTagged(try NameAddress("<sip:bob@b.example.com>;tag=old;x=1"), "new")
        try Self.expectTagged(try NameAddress("<sip:bob@b.example.com>;x=1;tag"), "new")
        try Self.expectTagged(try NameAddress("<sip:bob@b.example.com>;tag=old"), nil)
    }

    @Test func aDialogsCompactAddressTakesEachRequestsTag() throws {
        let request = try SIPRequest(parsing: TestData.bench("01_invite.sip"))
        let from = try #require(try request.from)
        // A view of the whole message: set through the general rebuild.
        try Self.expectTagged(from, "new")
        let compact = try #require(from.compactCopyWithoutTag)
        try Self.expectTagged(compact, "9fxced76sl")
    }

    @Test func valuesThatAreNotTokensAreWrittenTheGeneralWay() throws {
        var address = NameAddress(uri: try URI("sip:alice@example.com"))
        address.tag = "a b"
        #expect(address.tag != nil)
        #expect(!address.description.contains(";tag=a b"))
    }
}
