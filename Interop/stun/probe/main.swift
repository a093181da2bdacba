import Glibc
import STUN

// A tiny socket driver for the sans-I/O STUN and TURN cores, for cross-checks against a real server:
//   stun-probe HOST PORT
//   stun-probe turn udp|tcp|tls HOST PORT USER PASS [CA-FILE]
//   stun-probe bench [ITERATIONS]
// HOST is an IPv4 or IPv6 literal. The first form sends a Binding request over UDP (with FINGERPRINT),
// retransmits on the transaction's schedule, prints "mapped HOST:PORT" and exits 0 on a success response whose
// mapped port is the socket's own (true on loopback, where nothing translates); exits 1 otherwise. `turn` runs
// two allocations against a TURN server (TURNProbe.swift); `bench` times ChannelData against Send indications.

func runBinding() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let port = UInt16(arguments[2]),
        let fd = connectedSocket(host: arguments[1], port: port)
    else {
        print("usage: stun-probe HOST PORT")
        return 2
    }
    defer { close(fd) }
    var generator = SystemRandomNumberGenerator()
    var transaction = STUNBindingTransaction(
        attributes: [.software("switchboard stun-probe")], fingerprint: true, isReliable: false,
        generator: &generator)
    var deadline: STUNInstant?
    var sends = 0
    func perform(_ actions: [STUNTransactionAction]) -> STUNBindingOutcome? {
        for action in actions {
            switch action {
            case .send(let bytes):
                sends += 1
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            case .armTimer(let at): deadline = at
            case .finished(let outcome): return outcome
            }
        }
        return nil
    }
    var outcome = perform(transaction.start(at: now()))
    var buffer = [UInt8](repeating: 0, count: 2048)
    while outcome == nil, let at = deadline {
        let waitMilliseconds = max(0, (at.nanoseconds - now().nanoseconds) / 1_000_000)
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&pollfd, 1, Int32(min(waitMilliseconds, 60_000))) > 0 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                let datagram = Array(buffer[0..<count])
                if let received = try? STUNReceivedMessage(decoding: datagram) {
                    let software = received.message.software ?? "-"
                    print("response: \(count) bytes, fingerprint \(received.hasFingerprint), software \(software)")
                }
                outcome = perform(transaction.receive(datagram, at: now()))
            }
        } else if now() >= at {
            outcome = perform(transaction.timerFired(at: now()))
        }
    }
    print("requests sent: \(sends), transaction \(transaction.transactionID)")
    switch outcome {
    case .success(let mapped, let response)?:
        let source = response.xorMappedAddress != nil ? "XOR-MAPPED-ADDRESS" : "MAPPED-ADDRESS"
        print("mapped \(mapped) (\(source)), local port \(localPort(fd))")
        return mapped.port == localPort(fd) ? 0 : 1
    case .errorResponse(let code, let reason, _)?:
        print("error response \(code) \(reason)")
    case .timeout?:
        print("timeout")
    case .unusableResponse?:
        print("unusable response")
    case nil:
        print("no outcome")
    }
    return 1
}

switch CommandLine.arguments.dropFirst().first {
case "turn": exit(runTURN(Array(CommandLine.arguments.dropFirst(2))))
case "bench": exit(runBench(Array(CommandLine.arguments.dropFirst(2))))
default: exit(runBinding())
}
