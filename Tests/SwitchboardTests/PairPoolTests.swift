import SIPTransport
import Testing

@testable import Switchboard

@Suite("Media port pair pool")
struct PairPoolTests {
    private func bind() throws -> PairPool.Pair {
        try DatagramSocket.bindPair(host: "127.0.0.1", ports: 40000...49999, start: Int.random(in: 0..<4000))
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
}
