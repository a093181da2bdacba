package import Foundation
package import SIPCore
import SIPMessage
package import SIPTransaction
package import SIPTransport
import SIPUserAgent

/// The machinery of one provider: the signalling loop, the transport layer and the transaction core, and
/// the media engine with its own loop, its pool of port pairs sized for `expectedCallRate` new calls a second.
/// Loop-confined except for `execute` and `shutdown`.
package final class Engine: @unchecked Sendable {
    // @unchecked Sendable: state lives on `loop`; other threads only post work through `loop.execute`.

    package let loop: any EventLoopProtocol
    package let transport: SIPTransportLayer
    package let core: SIPCore
    /// The media loop and the RTP ports of the calls.
    package let media: MediaEngine
    /// Where sockets, randomness and clocks come from.
    package let environment: EngineEnvironment
    /// The destinations of the numeric next hops the drivers resolved last (loop-confined).
    let numericHops = NumericHops()
    /// The system loop the engine started and stops; nil when the environment brought its own loop.
    private let ownLoop: EventLoop?

    package init(
        transport configuration: TransportConfiguration = TransportConfiguration(),
        transactions: TransactionConfiguration = TransactionConfiguration(),
        expectedCallRate: Int = 0,
        mediaPorts: ClosedRange<UInt16>? = nil,
        environment: EngineEnvironment = .system
    ) throws {
        self.environment = environment
        if let shared = environment.loop {
            loop = shared
            ownLoop = nil
        } else {
            let system = try EventLoop(name: "signalling")
            system.reserveTimerCapacity(transactions.reservedCapacity)
            loop = system
            ownLoop = system
        }
        transport = SIPTransportLayer(loop: loop, network: environment.network, configuration: configuration)
        var seeded = transactions
        if seeded.tagSeed == 0 { seeded.tagSeed = environment.random.word() | 1 }
        // A label for the `.invalid` host of a WebSocket client (RFC 7118 §8), from the seed already drawn, so
        // a seeded world's traces stay the same.
        transport.webSocketClientHost = String((seeded.tagSeed &* 0x9E37_79B9_7F4A_7C15) >> 16, radix: 36) + ".invalid"
        core = SIPCore(transport: transport, configuration: seeded, random: environment.random.bytes)
        let pooledPairs = PairPool.capacity(
            expectedCallRate: expectedCallRate, descriptorLimit: environment.network.descriptorLimit,
            portPairs: mediaPorts.map(DatagramSocket.portPairs(in:)) ?? .max)
        media = try MediaEngine(signalling: loop, environment: environment, pooledPairs: pooledPairs)
        // The UAS checks of RFC 3261 §8.2.2-8.2.3 (416, 420, 415, 406) with the option tags the user agent
        // supports; without capabilities the core checks syntax only.
        core.capabilities = Capabilities(extensions: UserAgentCapabilities().supportedExtensions)
        ownLoop?.start()
        loop.execute { [core] in core.start() }
    }

    /// The wall clock (the environment's: virtual in tests).
    package var date: Date { environment.date() }

    /// Runs `body` on the loop.
    package func execute(_ body: @escaping @Sendable () -> Void) {
        loop.execute(body)
    }

    /// Closes every socket and stops the loop (not from the loop itself).
    package func shutdown() {
        loop.execute { [transport] in transport.shutdown() }
        ownLoop?.stop()
        media.shutdown()
    }
}
