/// The kernel's route source per remote address, asked again at most once per `lifetime`.
///
/// Every request a user agent sends names its local address (Via sent-by, Contact); with a listener on
/// the unspecified address that address is the route's source, which takes four system calls to learn
/// (a UDP socket connected and named, then closed). A load generator sends several requests per call, so
/// the answer is kept a moment: long enough to spare the calls, short enough that a changed route (a
/// roaming host, an interface going down) is followed within a second.
struct RouteSourceCache {
    static let lifetime = Duration.seconds(1)
    /// More remote addresses than this at once is not a user agent's traffic pattern: start afresh.
    static let capacity = 256

    private var entries: [SocketAddress: (source: SocketAddress?, until: ContinuousClock.Instant)] = [:]

    var count: Int { entries.count }

    /// The source for `remote` (its port is irrelevant to the route), from `lookup` when not known since
    /// `now - lifetime`.
    mutating func source(
        to remote: SocketAddress, now: ContinuousClock.Instant, lookup: (SocketAddress) -> SocketAddress?
    ) -> SocketAddress? {
        let key = remote.with(port: 0)
        if let entry = entries[key], now < entry.until { return entry.source }
        let source = lookup(remote)
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = (source, now + Self.lifetime)
        return source
    }
}
