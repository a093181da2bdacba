import Glibc
import STUN

// A tiny socket driver for the sans-I/O Binding transaction, for cross-checks against a real STUN server:
//   stun-probe HOST PORT
// HOST is an IPv4 or IPv6 literal. Sends a Binding request over UDP (with FINGERPRINT), retransmits on the
// transaction's schedule, prints "mapped HOST:PORT" and exits 0 on a success response whose mapped port is the
// socket's own (true on loopback, where nothing translates); exits 1 otherwise.

/// The wall clock as the transaction wants it: nanoseconds on the monotonic clock.
func now() -> STUNInstant {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return STUNInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
}

/// The socket's local port.
func localPort(_ fd: Int32) -> UInt16 {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    // sin_port and sin6_port sit at the same offset, right after the family.
    let port = withUnsafeBytes(of: &storage) { $0.load(fromByteOffset: 2, as: UInt16.self) }
    return UInt16(bigEndian: port)
}

/// A connected UDP socket to HOST:PORT; nil if the address does not parse or the socket fails.
func connectedSocket(host: String, port: UInt16) -> Int32? {
    var v4 = sockaddr_in()
    var v6 = sockaddr_in6()
    if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = port.bigEndian
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        let ok = withUnsafePointer(to: &v4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return fd >= 0 && ok == 0 ? fd : nil
    }
    if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
        let ok = withUnsafePointer(to: &v6) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        return fd >= 0 && ok == 0 ? fd : nil
    }
    return nil
}

func run() -> Int32 {
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

exit(run())
