package import Foundation
package import Media
package import SIPCore
package import SIPTransport

/// What an engine takes from the world around it: loops, sockets, randomness and clocks. The system's
/// (epoll threads, the kernel's sockets, getrandom, the wall clock) by default; the testing product
/// supplies a virtual-time loop, an in-memory network and seeded randomness, so a whole provider runs
/// deterministically without sockets.
package struct EngineEnvironment: Sendable {
    /// The loop signalling and media run on; nil makes two system loops (signalling and media).
    package var loop: (any EventLoopProtocol)?
    /// The sockets of the transport layer and the media streams.
    package var network: any NetworkStack
    /// Tags, branches, Call-IDs, CSeqs, SDP session ids, SRTP keys, SSRCs and call UUIDs.
    package var random: EngineRandom
    /// The wall clock of dates the API reports (`Call.startedAt`, registration expiry).
    package var date: @Sendable () -> Date
    /// The media clock (RTP timing, RTCP wall-clock times).
    package var mediaClock: any MediaClock
    /// Whether delegate callbacks and controller completions run on the loop itself, in order, instead of
    /// on their dispatch queues.
    package var deliversOnLoop: Bool
    /// How a caller waits for the loop to finish something (a provider winding down) for at most a
    /// duration: nil blocks on the wall clock; a virtual world runs its clock until the condition holds.
    package var wait: (@Sendable (Duration, @escaping @Sendable () -> Bool) -> Void)?

    package init(
        loop: (any EventLoopProtocol)? = nil, network: any NetworkStack = SystemNetwork.shared,
        random: EngineRandom = .system, date: @escaping @Sendable () -> Date = { Date() },
        mediaClock: any MediaClock = SystemMediaClock(), deliversOnLoop: Bool = false,
        wait: (@Sendable (Duration, @escaping @Sendable () -> Bool) -> Void)? = nil
    ) {
        self.wait = wait
        self.loop = loop
        self.network = network
        self.random = random
        self.date = date
        self.mediaClock = mediaClock
        self.deliversOnLoop = deliversOnLoop
    }

    /// The system's loops, sockets, randomness and clocks.
    package static let system = EngineEnvironment()
}

/// The random numbers of one engine: the process-wide getrandom pool, or a byte source of the caller's
/// (a seeded one in tests, so identifiers repeat from run to run).
package final class EngineRandom: Sendable {
    private let source: (any RandomByteSource)?

    /// Random numbers from `source`.
    package init(source: any RandomByteSource) { self.source = source }

    private init() { source = nil }

    /// The getrandom pool shared by every engine.
    package static let system = EngineRandom()

    /// The stack's byte source for the transaction core.
    package var bytes: any RandomByteSource { source ?? SystemRandomBytes.shared }

    /// 64 random bits.
    package func word() -> UInt64 {
        guard let source else { return RandomUUID.word() }
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { source.fill($0) }
        return word
    }

    /// A version 4 UUID.
    package func uuid() -> UUID {
        guard source != nil else { return RandomUUID.make() }
        return RandomUUID.version4(high: word(), low: word())
    }

    /// A generator over these numbers, for APIs that take one.
    package var generator: EngineRandomGenerator { EngineRandomGenerator(random: self) }
}

/// `EngineRandom` as a `RandomNumberGenerator`.
package struct EngineRandomGenerator: RandomNumberGenerator {
    let random: EngineRandom

    package mutating func next() -> UInt64 { random.word() }
}

/// A media clock that reads an event loop's time (a virtual loop's, in tests), with the wall clock
/// derived from the same instant.
package struct LoopMediaClock: MediaClock {
    private let loop: any EventLoopProtocol
    private let origin: ContinuousClock.Instant
    private let wallOrigin: Date

    /// A clock at zero now on `loop`, whose wall clock reads `wallOrigin` then.
    package init(loop: any EventLoopProtocol, wallOrigin: Date) {
        self.loop = loop
        self.origin = loop.now
        self.wallOrigin = wallOrigin
    }

    package func now() -> MediaInstant { MediaInstant(nanoseconds: Self.nanoseconds(loop.now - origin)) }

    package func wallclock() -> NTPTimestamp {
        let unix = wallOrigin.timeIntervalSince1970 * 1e9 + Double(now().nanoseconds)
        return NTPTimestamp(unixNanoseconds: Int64(unix))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
