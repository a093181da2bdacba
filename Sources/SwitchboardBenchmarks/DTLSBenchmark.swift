import DTLS
import Foundation
import Media

// `--only dtls`: a DTLS-SRTP handshake between two DTLSEngines in this process (client and server, ECDSA P-256
// certificates made once, AEAD_AES_128_GCM negotiated, datagrams handed across in memory), timed whole:
// both engines' creation, the four flights, the key export. Warm-up, then `repetitions` runs of `handshakes`
// handshakes on one thread; thread CPU µs per handshake (min/median/max) and the handshakes per second one
// core does at the median. Then one handshake in real time whose first ClientHello is lost: the engine's
// deadline is slept to and `advance(to:)` runs, as a driver would (not a test: it needs the wall clock).

/// Both ends of one handshake, run to completion.
private func handshake(client: DTLSEngine.Configuration, server: DTLSEngine.Configuration) throws -> Bool {
    let alice = try DTLSEngine(configuration: client)
    let bob = try DTLSEngine(configuration: server)
    let now = MediaInstant.seconds(1)
    _ = bob.start(at: now)
    var toServer = alice.start(at: now)
    for _ in 0..<8 {
        var toClient: [DTLSAction] = []
        for case .send(let datagram) in toServer { toClient += try bob.receive(datagram, at: now) }
        toServer = []
        for case .send(let datagram) in toClient { toServer += try alice.receive(datagram, at: now) }
        if alice.state == .connected && bob.state == .connected { return true }
    }
    return false
}

/// A MediaInstant on the monotonic clock.
private func monotonicNow() -> MediaInstant {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return MediaInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
}

/// The lost-ClientHello run in real time; returns a line to print.
private func lostFlightInRealTime(client: DTLSEngine.Configuration, server: DTLSEngine.Configuration) throws
    -> String
{
    var clientConfiguration = client
    clientConfiguration.initialRetransmissionTimeout = .milliseconds(100)
    let alice = try DTLSEngine(configuration: clientConfiguration)
    let bob = try DTLSEngine(configuration: server)
    let start = monotonicNow()
    _ = bob.start(at: start)
    let lost = alice.start(at: start)
    guard let deadline = alice.nextDeadline else { return "lost flight: no deadline" }
    var now = monotonicNow()
    var retransmitted: [DTLSAction] = []
    for _ in 0..<20 where retransmitted.isEmpty {
        let next = alice.nextDeadline ?? deadline
        if next > now { usleep(UInt32((next.nanoseconds - now.nanoseconds) / 1000)) }
        now = monotonicNow()
        retransmitted = alice.advance(to: now)
    }
    var toServer = retransmitted
    for _ in 0..<8 where alice.state != .connected {
        var toClient: [DTLSAction] = []
        for case .send(let datagram) in toServer { toClient += try bob.receive(datagram, at: now) }
        toServer = []
        for case .send(let datagram) in toClient { toServer += try alice.receive(datagram, at: now) }
    }
    let asked = Double(deadline.nanoseconds - start.nanoseconds) / 1e6
    let sent = Double(now.nanoseconds - start.nanoseconds) / 1e6
    return String(
        format: "lost ClientHello (%d datagram): deadline +%.1f ms, retransmitted at +%.1f ms, connected: %@",
        lost.count, asked, sent, alice.state == .connected ? "yes" : "no")
}

func runDTLSBenchmark(handshakes: Int, repetitions: Int) {
    do {
        let alice = try DTLSIdentity.generate(commonName: "alice")
        let bob = try DTLSIdentity.generate(commonName: "bob")
        let client = DTLSEngine.Configuration(role: .client, identity: alice, remoteFingerprints: [bob.fingerprint])
        let server = DTLSEngine.Configuration(role: .server, identity: bob, remoteFingerprints: [alice.fingerprint])
        for _ in 0..<max(1, handshakes / 10) {
            guard try handshake(client: client, server: server) else { throw MediaBenchmarkError("no handshake") }
        }
        var samples: [Double] = []
        for _ in 0..<repetitions {
            let start = threadCPUSeconds()
            for _ in 0..<handshakes {
                guard try handshake(client: client, server: server) else { throw MediaBenchmarkError("no handshake") }
            }
            samples.append((threadCPUSeconds() - start) * 1e6 / Double(handshakes))
        }
        let m = Measurement(samples: samples)
        print(
            "# DTLS-SRTP handshake, both ends in process, thread CPU µs, \(repetitions) x \(handshakes) (min/median/max)"
        )
        print("RESULT\tdtls\thandshake-us\t" + String(format: "%.0f/%.0f/%.0f", m.min, m.median, m.max))
        print("RESULT\tdtls\thandshakes-per-second-per-core\t" + String(format: "%.0f", 1e6 / m.median))
        print("# " + (try lostFlightInRealTime(client: client, server: server)))
    } catch {
        print("dtls: \(error)")
        exit(1)
    }
}
