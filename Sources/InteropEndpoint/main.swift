import CSystem
import Dispatch
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// sb-endpoint: the Interop suite's SIP endpoint on the transaction layer (see Options.usage).

func emit(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    var text = "sb-endpoint: " + message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}

// The SDP-only media mode runs on this thread, without the SIP stack (SDPEndpoint).
if CommandLine.arguments.dropFirst().first == "sdp" {
    let sdpOptions: SDPOptions
    do {
        sdpOptions = try SDPOptions.parse(Array(CommandLine.arguments.dropFirst(2)))
    } catch {
        fail(error.message)
    }
    do throws(UDPPort.Failure) {
        exit(try SDPEndpoint(options: sdpOptions).run())
    } catch {
        fail("\(error)")
    }
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail(error.message)
}

// SIGINT/SIGTERM end the run: blocked in every thread, taken by sigwait on a thread of their own.
func terminationSignals() -> sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    return set
}
var blocked = terminationSignals()
pthread_sigmask(SIG_BLOCK, &blocked, nil)

let finished = DispatchSemaphore(value: 0)
let exitStatus = Atomic<Int32>(0)

let loop: EventLoop
do {
    loop = try EventLoop(name: "endpoint")
} catch {
    fail("\(error)")
}
loop.start()

var timers = TransactionTimers()
timers.t1 = .milliseconds(options.t1Milliseconds)
let transport = SIPTransportLayer(
    loop: loop,
    configuration: TransportConfiguration(
        tls: TLSConfiguration(
            trustedCAFile: options.trustedCA, certificateFile: options.certificate, privateKeyFile: options.privateKey))
)
var seed = SystemRandomNumberGenerator()
// Room for the transactions that linger in Completed (Timer K = T4 over UDP) at high rates.
let core = SIPCore(
    transport: transport,
    configuration: TransactionConfiguration(timers: timers, maximumTransactions: 262_144, tagSeed: seed.next()))

DispatchQueue.global().async {
    var set = terminationSignals()
    var signal: Int32 = 0
    sigwait(&set, &signal)
    finished.signal()
}

if let duration = options.duration {
    DispatchQueue.global().asyncAfter(deadline: .now() + duration) { finished.signal() }
}

// The server or client stays alive until the loop has stopped (its callbacks may still run until then).
var role: AnyObject?

switch options.mode {
case "uas":
    let server = EndpointServer(core: core, inviteStatus: options.inviteStatus)
    role = server
    loop.execute {
        do {
            for (transport, address) in options.listens {
                let bound = try core.transport.listen(transport, on: address)
                emit("ready \(transport.rawValue) \(bound)")
            }
            core.start()
            server.start()
        } catch {
            emit("error \(error)")
            exitStatus.store(1, ordering: .relaxed)
            finished.signal()
        }
    }
    finished.wait()
    loop.execute {
        emit(server.statsLine())
        finished.signal()
    }
    finished.wait()
default:
    let client = EndpointClient(core: core, options: options) { status in
        exitStatus.store(status, ordering: .relaxed)
        finished.signal()
    }
    role = client
    loop.execute {
        do {
            try client.start()
        } catch {
            emit("error \(error)")
            exitStatus.store(1, ordering: .relaxed)
            finished.signal()
        }
    }
    finished.wait()
}

loop.execute { core.transport.shutdown() }
loop.stop()
withExtendedLifetime(role) {}
exit(exitStatus.load(ordering: .relaxed))
