import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// The machinery of one provider: the signalling loop, the transport layer and the transaction core, and
/// the media engine with its own loop.
/// Loop-confined except for `execute` and `shutdown`.
package final class Engine: @unchecked Sendable {
    // @unchecked Sendable: state lives on `loop`; other threads only post work through `loop.execute`.

    package let loop: EventLoop
    package let transport: SIPTransportLayer
    package let core: SIPCore
    /// The media loop and the RTP ports of the calls.
    package let media: MediaEngine

    package init(
        transport configuration: TransportConfiguration = TransportConfiguration(),
        transactions: TransactionConfiguration = TransactionConfiguration()
    ) throws {
        loop = try EventLoop(name: "signalling")
        transport = SIPTransportLayer(loop: loop, configuration: configuration)
        var seeded = transactions
        var generator = SystemRandomNumberGenerator()
        if seeded.tagSeed == 0 { seeded.tagSeed = generator.next() }
        core = SIPCore(transport: transport, configuration: seeded)
        media = try MediaEngine(signalling: loop)
        // The UAS checks of RFC 3261 §8.2.2-8.2.3 (416, 420, 415, 406) with the option tags the user agent
        // supports; without capabilities the core checks syntax only.
        core.capabilities = Capabilities(extensions: UserAgentCapabilities().supportedExtensions)
        loop.reserveTimerCapacity(seeded.reservedCapacity)
        loop.start()
        loop.execute { [core] in core.start() }
    }

    /// Runs `body` on the loop.
    package func execute(_ body: @escaping @Sendable () -> Void) {
        loop.execute(body)
    }

    /// Closes every socket and stops the loop (not from the loop itself).
    package func shutdown() {
        loop.execute { [transport] in transport.shutdown() }
        loop.stop()
        media.shutdown()
    }
}
