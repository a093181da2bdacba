/// The session-level lines of an answer written from an offer's bytes (`OfferAnswer+WireAnswer.swift`), made once
/// per configuration: from `v=0` to the `o=` username and its space, and from the space after the `o=` version to
/// `t=0 0`, as `makeDescription(media:)` and the serializer write them. The engine writes the session id and
/// version between the two.
struct SessionLineText: Sendable, Hashable {
    /// Both parts, the first ending at `split`.
    let bytes: [UInt8]
    let split: Int

    /// The lines for these texts; `nil` when the serializer would write one of them differently (an empty or
    /// spaced field, a line break, an address with a `/`), which leaves the answer to the model path.
    init?(username: String, address: String, sessionName: String) {
        guard username.isSDPField, address.isSDPField, !address.utf8.contains(ASCII.slash),
            !sessionName.utf8.contains(where: { $0 == ASCII.nul || $0 == ASCII.cr || $0 == ASCII.lf })
        else { return nil }
        let addressType = address.utf8.contains(ASCII.colon) ? "IP6 " : "IP4 "
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48 + username.utf8.count + 2 * address.utf8.count + sessionName.utf8.count)
        bytes.append(contentsOf: "v=0\r\no=".utf8)
        bytes.append(contentsOf: username.utf8)
        bytes.append(ASCII.space)
        split = bytes.count
        bytes.append(contentsOf: " IN \(addressType)\(address)\r\ns=\(sessionName)\r\n".utf8)
        bytes.append(contentsOf: "c=IN \(addressType)\(address)\r\nt=0 0\r\n".utf8)
        self.bytes = bytes
    }
}
