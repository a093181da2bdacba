import Glibc
import SIPTransport
import Testing

@testable import Switchboard

@Suite("Media port pair pool")
struct PairPoolTests {
    private func bind() throws -> PairPool.Pair {
        MediaPair(
            try DatagramSocket.bindPair(host: "127.0.0.1", ports: 40000...49999, start: Int.random(in: 0..<4000)))
    }

    @Test func aPairIsReusedOnlyAfterItRested() throws {
        var pool = PairPool()
        let start = ContinuousClock.now
        let pair = try bind()
        let port = pair.rtp.localAddress.port
        #expect(pool.put(pair, host: "127.0.0.1", now: start) == nil)
        #expect(pool.take(host: "127.0.0.1", ports: 40000...49999, now: start + .milliseconds(500)) == nil)
        // Another host or a range without the port never gets it.
        #expect(pool.take(host: "127.0.0.2", ports: 40000...49999, now: start + .seconds(2)) == nil)
        #expect(pool.take(host: "127.0.0.1", ports: 1000...2000, now: start + .seconds(2)) == nil)
        let reused = pool.take(host: "127.0.0.1", ports: 40000...49999, now: start + PairPool.reuseDelay)
        #expect(reused?.rtp.localAddress.port == port)
        #expect(reused?.rtcp.localAddress.port == port + 1)
        #expect(pool.count == 0)
        for socket in [pair.rtp, pair.rtcp] { socket.close() }
    }

    @Test func theOldestPairComesFirstAndRemoveAllEmptiesThePool() throws {
        var pool = PairPool()
        let start = ContinuousClock.now
        let first = try bind()
        let second = try bind()
        _ = pool.put(first, host: "127.0.0.1", now: start)
        _ = pool.put(second, host: "127.0.0.1", now: start + .milliseconds(10))
        let taken = pool.take(host: "127.0.0.1", ports: 40000...49999, now: start + .seconds(5))
        #expect(taken?.rtp === first.rtp)
        let rest = pool.removeAll()
        #expect(rest.count == 1 && rest.first?.rtp === second.rtp)
        #expect(pool.count == 0)
        for socket in [first.rtp, first.rtcp, second.rtp, second.rtcp] { socket.close() }
    }

    @Test func theCapacityHoldsOneAndAHalfSecondsOfTheRateWithinTheDescriptors() {
        #expect(PairPool.capacity(expectedCallRate: 0, descriptorLimit: .max) == PairPool.defaultCapacity)
        #expect(PairPool.capacity(expectedCallRate: 2_000, descriptorLimit: .max) == PairPool.defaultCapacity)
        #expect(PairPool.capacity(expectedCallRate: 7_000, descriptorLimit: 65_536) == 10_500)
        // 20,000 descriptors: 4,096 stay free for the rest, the pool gets the other 15,904 (7,952 pairs).
        #expect(PairPool.capacity(expectedCallRate: 7_000, descriptorLimit: 20_000) == 7_952)
        // A small limit keeps half for the rest, even with no rate declared.
        #expect(PairPool.capacity(expectedCallRate: 0, descriptorLimit: 1_024) == 256)
        #expect(PairPool.capacity(expectedCallRate: -5, descriptorLimit: 0) == 0)
        // Half the port range stays for the live calls: 40000-49999 holds 5,000 pairs, the pool 2,500.
        let pairs = DatagramSocket.portPairs(in: 40_000...49_999)
        #expect(pairs == 5_000)
        #expect(PairPool.capacity(expectedCallRate: 2_000, descriptorLimit: .max, portPairs: pairs) == 2_500)
        #expect(PairPool.capacity(expectedCallRate: 0, descriptorLimit: 1_024, portPairs: pairs) == 256)
        #expect(DatagramSocket.portPairs(in: 40_001...40_004) == 1)
        #expect(PairPool.capacity(expectedCallRate: 0, descriptorLimit: .max, portPairs: 1) == 1)
        #expect(PairPool.capacity(expectedCallRate: 0, descriptorLimit: .max, portPairs: 5) == 3)
        #expect(DatagramSocket.portPairs(in: 65_535...65_535) == 0)
    }

    @Test func beyondItsCapacityThePoolGivesBackTheOldestAndEvictsOnRequest() throws {
        var pool = PairPool(capacity: 2)
        let start = ContinuousClock.now
        let pairs = try (0..<3).map { _ in try bind() }
        #expect(pool.put(pairs[0], host: "127.0.0.1", now: start) == nil)
        #expect(pool.put(pairs[1], host: "127.0.0.1", now: start) == nil)
        #expect(pool.put(pairs[2], host: "127.0.0.1", now: start)?.rtp === pairs[0].rtp)
        // Eviction takes the oldest, rested or not.
        let evicted = pool.evictOldest(1)
        #expect(evicted.count == 1 && evicted.first?.rtp === pairs[1].rtp)
        #expect(pool.count == 1)
        #expect(pool.evictOldest(5).count == 1 && pool.count == 0)
        for pair in pairs { for socket in [pair.rtp, pair.rtcp] { socket.close() } }
    }

    @Test func aFullPoolLendsItsOldestPairAfterTheShortRest() throws {
        // Calls end faster than the pool holds a second of them: room for 4 pairs, one ending every 10 ms.
        var pool = PairPool(capacity: 4)
        let start = ContinuousClock.now
        let host = "127.0.0.1"
        let ports: ClosedRange<UInt16> = 40000...49999
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
        let pairs = try (0..<6).map { _ in try bind() }
        defer { for pair in pairs { pair.close() } }
        for index in 0..<4 { #expect(pool.put(pairs[index], host: host, now: at(10 * index)) == nil) }
        // With room left, the oldest pair rests the full second.
        #expect(!pool.isFull)
        #expect(pool.take(host: host, ports: ports, now: at(200)) == nil)
        // The fifth pair gives the first back: from now on the oldest is lent once it rested the short delay,
        // instead of being closed unused while each new call binds a pair of its own.
        #expect(pool.put(pairs[4], host: host, now: at(210))?.rtp === pairs[0].rtp)
        #expect(pool.isFull)
        #expect(PairPool.fullReuseDelay <= .milliseconds(200))
        #expect(pool.take(host: host, ports: ports, now: at(210))?.rtp === pairs[1].rtp)
        // Not before it rested, nor to another host.
        #expect(pool.put(pairs[5], host: host, now: at(220)) == nil)
        #expect(pool.take(host: "127.0.0.2", ports: ports, now: at(225)) == nil)
        #expect(pool.take(host: host, ports: ports, now: at(225))?.rtp === pairs[2].rtp)
        // Thinned out by takes, it goes on lending: the ended calls come back to it.
        #expect(pool.take(host: host, ports: ports, now: at(230))?.rtp === pairs[3].rtp)
        #expect(pool.count == 2 && pool.isFull)
        #expect(pool.take(host: host, ports: ports, now: at(310))?.rtp === pairs[4].rtp)
        // Once its oldest pair rested the full second, it holds a second of calls: the full rest is back.
        #expect(pool.put(pairs[0], host: host, now: at(1_300)) == nil)
        #expect(pool.take(host: host, ports: ports, now: at(1_320))?.rtp === pairs[5].rtp)
        #expect(!pool.isFull)
        #expect(pool.take(host: host, ports: ports, now: at(1_500)) == nil)
        #expect(pool.take(host: host, ports: ports, now: at(1_300) + PairPool.reuseDelay)?.rtp === pairs[0].rtp)
        _ = pool.removeAll()
    }

    @Test func aPairTooYoungEvenForAFullPoolStaysPut() throws {
        var pool = PairPool(capacity: 1)
        let start = ContinuousClock.now
        let pairs = try (0..<2).map { _ in try bind() }
        defer { for pair in pairs { pair.close() } }
        _ = pool.put(pairs[0], host: "127.0.0.1", now: start)
        #expect(pool.put(pairs[1], host: "127.0.0.1", now: start)?.rtp === pairs[0].rtp)
        #expect(pool.isFull)
        #expect(pool.take(host: "127.0.0.1", ports: 40000...49999, now: start + .milliseconds(50)) == nil)
        #expect(pool.take(host: "127.0.0.1", ports: 40000...49999, now: start + PairPool.fullReuseDelay) != nil)
        // Idle pairs expiring mean calls are rare again: the full rest is back.
        _ = pool.put(pairs[0], host: "127.0.0.1", now: start)
        #expect(pool.isFull)
        #expect(pool.expire(now: start + PairPool.idleLimit).count == 1)
        #expect(!pool.isFull)
    }

    @Test func bindingStopsAtOnceWhenTheProcessHasNoDescriptorLeft() throws {
        let network = ExhaustedNetwork()
        #expect {
            try DatagramSocket.bindPair(host: "127.0.0.1", ports: 40000...49999, start: 0, on: network)
        } throws: { ($0 as? TransportError)?.errno == EMFILE }
        // Not one attempt per pair in the range.
        #expect(network.attempts == 1)
    }
}

/// A network whose every socket fails with EMFILE, counting the attempts.
private final class ExhaustedNetwork: NetworkStack, @unchecked Sendable {
    // @unchecked Sendable: used by one test on one thread.
    var attempts = 0

    func bindDatagram(_ address: SocketAddress, options: DatagramOptions) throws(TransportError)
        -> any DatagramChannel
    {
        attempts += 1
        throw .system("socket", errno: EMFILE)
    }

    func listenStream(_ address: SocketAddress) throws(TransportError) -> any StreamListenerChannel {
        throw .system("socket", errno: EMFILE)
    }

    func connectStream(to address: SocketAddress) throws(TransportError) -> any StreamChannel {
        throw .system("socket", errno: EMFILE)
    }

    func routeSource(to remote: SocketAddress) -> SocketAddress? { nil }
}
