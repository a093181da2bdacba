import Glibc
import STUN

/// One allocation: the sans-I/O client, its connection to the server, its timer and what it reported.
final class Party {
    let name: String
    let connection: ServerConnection
    var client: TURNClient<SystemRandomNumberGenerator>
    var deadline: STUNInstant?
    var events: [TURNClientEvent] = []
    /// ChannelData messages received from the server, counted on the wire (a shadow framer over streams).
    var channelDataReceived = 0
    /// Send indications and ChannelData messages written to the server.
    var sendIndications = 0
    var channelDataSent = 0
    private var shadowFramer = TURNStreamFramer()

    init(name: String, connection: ServerConnection, credentials: TURNCredentials) {
        self.name = name
        self.connection = connection
        let configuration = TURNClientConfiguration(
            credentials: credentials, isReliable: connection.isStream, software: "switchboard stun-probe")
        self.client = TURNClient(configuration: configuration, random: SystemRandomNumberGenerator())
    }

    func perform(_ actions: [TURNClientAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                if let first = bytes.first, TURNChannelData.isChannelData(firstByte: first) { channelDataSent += 1 }
                if bytes.count >= 4, bytes[0] == 0x00, bytes[1] == 0x16 { sendIndications += 1 }
                connection.write(bytes)
            case .armTimer(let at): deadline = at
            case .event(let event):
                events.append(event)
                print("\(name): \(describe(event))")
            }
        }
    }

    /// Reads what the server sent and hands it to the client.
    func readable() {
        guard let bytes = connection.read() else { return }
        if connection.isStream {
            if (try? shadowFramer.append(bytes)) != nil {
                while let frame = try? shadowFramer.nextFrame() {
                    if case .channelData = frame { channelDataReceived += 1 }
                }
            }
            perform(client.receive(streamBytes: bytes, at: now()))
        } else {
            if let first = bytes.first, TURNChannelData.isChannelData(firstByte: first) { channelDataReceived += 1 }
            perform(client.receive(bytes, at: now()))
        }
    }

    func timerDue() {
        guard let at = deadline, now() >= at else { return }
        deadline = nil
        perform(client.timerFired(at: now()))
    }

    private func describe(_ event: TURNClientEvent) -> String {
        switch event {
        case .allocated(let relayed, let mapped, let lifetime):
            "allocated relayed \(relayed) mapped \(mapped.map(String.init(describing:)) ?? "-") lifetime \(lifetime)"
        case .refreshed(let lifetime): "refreshed, lifetime \(lifetime)"
        case .permissionReady(let address): "permission for \(address)"
        case .permissionFailed(let address, let failure): "permission for \(address) failed: \(failure)"
        case .channelReady(let peer, let channel): "channel \(channel) bound to \(peer)"
        case .channelFailed(let peer, let failure): "channel to \(peer) failed: \(failure)"
        case .data(let peer, let payload): "\(payload.count) bytes from \(peer)"
        case .failed(let failure): "FAILED \(failure)"
        case .closed: "closed"
        }
    }
}

/// Polls both parties' connections and timers until `done` holds or `seconds` pass; false on a timeout or a
/// failure event.
func runUntil(_ parties: [Party], seconds: Int64 = 5, _ done: () -> Bool) -> Bool {
    let end = now() + .seconds(seconds)
    while !done() {
        if parties.contains(where: { $0.events.contains { if case .failed = $0 { true } else { false } } }) {
            return false
        }
        let current = now()
        guard current < end else { return false }
        for party in parties where party.connection.hasPending { party.readable() }
        var deadline = end
        for party in parties { if let at = party.deadline, at < deadline { deadline = at } }
        var fds = parties.map { pollfd(fd: $0.connection.fd, events: Int16(POLLIN), revents: 0) }
        let wait = max(0, min((deadline.nanoseconds - current.nanoseconds) / 1_000_000, 1000))
        if poll(&fds, nfds_t(fds.count), Int32(wait)) > 0 {
            for (index, fd) in fds.enumerated() where fd.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                parties[index].readable()
            }
        }
        for party in parties { party.timerDue() }
    }
    return true
}

/// The payload of `length` bytes a direction carries: a pattern that shows truncation and reordering.
func payload(_ tag: UInt8, length: Int = 160) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) ^ tag }
}

/// `stun-probe turn udp|tcp|tls HOST PORT USER PASS [CA-FILE]`: two allocations on one server; each permits the
/// other's relayed address; A sends to B with a Send indication; both bind channels and B sends to A, then A
/// to B, as ChannelData; both refresh and deallocate. Exits 0 when every step worked and payloads arrived
/// intact.
func runTURN(_ arguments: [String]) -> Int32 {
    guard arguments.count >= 5, let kind = ServerConnection.Kind(rawValue: arguments[0]),
        let port = UInt16(arguments[2])
    else {
        print("usage: stun-probe turn udp|tcp|tls HOST PORT USER PASS [CA-FILE]")
        return 2
    }
    let host = arguments[1]
    let credentials = TURNCredentials(username: arguments[3], password: arguments[4])
    let caFile = arguments.count > 5 ? arguments[5] : nil
    guard let connectionA = ServerConnection(kind: kind, host: host, port: port, caFile: caFile),
        let connectionB = ServerConnection(kind: kind, host: host, port: port, caFile: caFile)
    else { return 1 }
    let a = Party(name: "A", connection: connectionA, credentials: credentials)
    let b = Party(name: "B", connection: connectionB, credentials: credentials)
    let parties = [a, b]
    func step(_ name: String, _ done: () -> Bool) -> Bool {
        let ok = runUntil(parties, done)
        print("== \(name): \(ok ? "ok" : "FAILED")")
        return ok
    }
    func has(_ party: Party, _ predicate: (TURNClientEvent) -> Bool) -> Bool { party.events.contains(where: predicate) }

    a.perform(a.client.start(at: now()))
    b.perform(b.client.start(at: now()))
    guard step("allocate", { a.client.relayedAddress != nil && b.client.relayedAddress != nil }),
        let relayedA = a.client.relayedAddress, let relayedB = b.client.relayedAddress
    else { return 1 }

    a.perform(a.client.createPermission(for: relayedB.address, at: now()))
    b.perform(b.client.createPermission(for: relayedA.address, at: now()))
    guard step("permissions", { !a.client.permittedPeers.isEmpty && !b.client.permittedPeers.isEmpty }) else {
        return 1
    }

    let ab = payload(0xA5)
    a.perform(a.client.send(ab, to: relayedB, at: now()))
    guard step("A->B Send indication, Data indication", { has(b) { $0 == .data(peer: relayedA, payload: ab) } }),
        a.sendIndications == 1
    else { return 1 }

    b.perform(b.client.bindChannel(to: relayedA, at: now()))
    a.perform(a.client.bindChannel(to: relayedB, at: now()))
    guard step("channels", { a.client.channel(for: relayedB) != nil && b.client.channel(for: relayedA) != nil })
    else { return 1 }

    let ba = payload(0x5A)
    b.perform(b.client.send(ba, to: relayedA, at: now()))
    guard step("B->A ChannelData", { has(a) { $0 == .data(peer: relayedB, payload: ba) } }),
        b.channelDataSent == 1, a.channelDataReceived == 1
    else { return 1 }
    let ab2 = payload(0x3C, length: 161)
    a.perform(a.client.send(ab2, to: relayedB, at: now()))
    guard step("A->B ChannelData (161 bytes)", { has(b) { $0 == .data(peer: relayedA, payload: ab2) } }),
        a.channelDataSent == 1, b.channelDataReceived == 1
    else { return 1 }

    a.perform(a.client.refresh(at: now()))
    b.perform(b.client.refresh(at: now()))
    let refreshed: (TURNClientEvent) -> Bool = { if case .refreshed = $0 { true } else { false } }
    guard step("refresh", { has(a, refreshed) && has(b, refreshed) }) else { return 1 }

    a.perform(a.client.close(at: now()))
    b.perform(b.client.close(at: now()))
    guard step("deallocate", { a.client.state == .closed && b.client.state == .closed }) else { return 1 }
    print("turn \(kind): passed (relayed \(relayedA) and \(relayedB), 160/160/161-byte payloads intact)")
    return 0
}
