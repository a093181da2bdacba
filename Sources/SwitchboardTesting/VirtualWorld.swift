public import Foundation
import Media
import SIPCore
import SIPTransport
public import Switchboard
import Synchronization

/// Providers, a network and a clock in one process, in virtual time: the whole stack (SIP, SDP, RTP,
/// SRTP, the delegate API) runs deterministically with no sockets and no sleeping. Time moves only
/// through `advance(by:)` and `run(until:within:)`; delegate callbacks run on the world's loop, in order.
///
/// ```swift
/// let world = VirtualWorld()
/// let bob = try world.makeProvider(configuration: bobConfiguration, host: "10.0.0.2")
/// bob.setDelegate(answeringDelegate, queue: nil)
/// let alice = try world.makeProvider(configuration: aliceConfiguration, host: "10.0.0.1")
/// let call = try await CallController(provider: alice).startCall(to: Handle(.sipURI, "sip:bob@10.0.0.2"))
/// world.advance(by: .seconds(1))
/// #expect(alice.call(with: call)?.state == .connected)
/// ```
public final class VirtualWorld: Sendable {
    /// The loop every provider of the world runs on.
    public let loop: VirtualEventLoop
    /// The network between the providers (and any raw peers a test adds).
    public let network: VirtualNetwork
    /// The wall-clock date at virtual time zero.
    public let wallClockOrigin: Date
    private let seed: UInt64
    private let providersMade = Atomic<UInt64>(0)

    /// A world whose randomness (identifiers, keys, impairments) is drawn from `seed`.
    /// - Parameters:
    ///   - seed: the same seed gives the same run, byte for byte.
    ///   - wallClockOrigin: the date at virtual time zero (`Call.startedAt` and the like count from it).
    public init(seed: UInt64 = 1, wallClockOrigin: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        self.loop = VirtualEventLoop()
        self.network = VirtualNetwork(loop: loop, seed: seed)
        self.wallClockOrigin = wallClockOrigin
        self.seed = seed
    }

    /// The world's wall-clock date now.
    public var date: Date { wallClockOrigin.addingTimeInterval(Self.seconds(loop.elapsedTime)) }

    /// Moves virtual time forward by `duration`, running everything due on the way.
    public func advance(by duration: Duration) { loop.advance(by: duration) }

    /// Moves virtual time forward until `condition` holds or `limit` has passed; returns whether it holds.
    @discardableResult
    public func run(until condition: () -> Bool, within limit: Duration) -> Bool {
        loop.run(until: condition, within: limit)
    }

    /// Runs `work`, a call that waits on the network (such as `CallProvider.send(_:)` or
    /// `sendOptions(to:)`), while virtual time moves until it returns or `limit` has passed. The work runs
    /// as a task on the world's loop, so it sends its request before the clock moves and returns at the
    /// virtual instant its answer arrives.
    /// - Parameters:
    ///   - limit: the most virtual time to let pass.
    ///   - work: the call to run.
    /// - Returns: what `work` returned.
    /// - Throws: what `work` threw, or `VirtualWorld.TimedOut` when `limit` passed first.
    public func run<T: Sendable>(
        within limit: Duration, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let finished = FinishFlag()
        let task = Task(executorPreference: loop) {
            defer { finished.value.store(true, ordering: .releasing) }
            return try await work()
        }
        guard loop.run(until: { finished.value.load(ordering: .acquiring) }, within: limit) else {
            throw TimedOut(limit: limit)
        }
        return try await task.value
    }

    /// Thrown by `run(within:_:)` when the work has not returned within its limit of virtual time.
    public struct TimedOut: Error, CustomStringConvertible {
        /// The virtual time that passed.
        public let limit: Duration

        public var description: String { "the work did not return within \(limit) of virtual time" }
    }

    private final class FinishFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A provider on the host at `ip`. Its listeners and media bind on that address (the host part of
    /// each listener address is replaced by `ip`, the port kept; port 0 picks one).
    /// - Throws: `CallError` as `CallProvider.init` does.
    public func makeProvider(
        configuration: CallProviderConfiguration, host ip: String, logger: Logger = .discarding()
    ) throws(CallError) -> CallProvider {
        var configuration = configuration
        configuration.listeners = configuration.listeners.map { listener in
            var listener = listener
            let port = SocketAddress(parsing: listener.address, defaultPort: 0)?.port ?? 0
            listener.address = "\(ip):\(port)"
            return listener
        }
        configuration.mediaAddress = ip
        let index = providersMade.add(1, ordering: .relaxed).newValue
        return try CallProvider(
            configuration: configuration, logger: logger, environment: environment(index: index, ip))
    }

    private func environment(index: UInt64, _ ip: String) -> EngineEnvironment {
        let loop = self.loop
        let origin = wallClockOrigin
        let start = loop.elapsedTime
        let random = SeededRandomBytes(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ index)
        return EngineEnvironment(
            loop: loop, network: network.host(ip), random: EngineRandom(source: random),
            date: { origin.addingTimeInterval(Self.seconds(loop.elapsedTime)) },
            mediaClock: LoopMediaClock(loop: loop, wallOrigin: origin.addingTimeInterval(Self.seconds(start))),
            deliversOnLoop: true,
            wait: { limit, condition in loop.run(until: condition, within: limit) })
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
