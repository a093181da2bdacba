import SIPMessage
import SIPTransaction

/// A client layer and a server layer joined by a network in virtual time: what one sends reaches the other
/// at once unless `drop` says it is lost. With `isSerialized`, messages cross as bytes and are parsed again.
struct Pair {
    var client = Harness()
    var server = Harness()
    var isReliable = false
    var isSerialized = false
    /// Decides which transmissions are lost: (message, towards the server, how many like it went before).
    var drop: (Message, Bool, Int) -> Bool = { _, _, _ in false }
    private(set) var lost: [Message] = []
    private var clientCursor = 0
    private var serverCursor = 0
    private var seen: [String: Int] = [:]

    var now: Duration { client.now }

    /// Delivers every message sent so far, including those sent in reaction, until the network is quiet.
    mutating func pump() {
        while clientCursor < client.sent.count || serverCursor < server.sent.count {
            while clientCursor < client.sent.count {
                let message = client.sent[clientCursor].message
                clientCursor += 1
                guard let arriving = carry(message, towardsServer: true) else { continue }
                server.apply(server.layer.receive(arriving, from: "client", isReliable: isReliable))
            }
            while serverCursor < server.sent.count {
                let message = server.sent[serverCursor].message
                serverCursor += 1
                guard let arriving = carry(message, towardsServer: false) else { continue }
                client.apply(client.layer.receive(arriving, from: "server", isReliable: isReliable))
            }
        }
    }

    private mutating func carry(_ message: Message, towardsServer: Bool) -> Message? {
        let kind = "\(towardsServer) \(message.request?.method.rawValue ?? String(message.response?.statusCode ?? 0))"
        let count = seen[kind, default: 0]
        seen[kind] = count + 1
        if drop(message, towardsServer, count) {
            lost.append(message)
            return nil
        }
        guard isSerialized else { return message }
        return try? Message(parsing: message.serialized())
    }

    /// Moves both sides to `time`, firing their timers in order and carrying what they send.
    mutating func advance(to time: Duration) {
        pump()
        while let next = [client.scheduler.nextDeadline, server.scheduler.nextDeadline].compactMap({ $0 }).min(),
            next <= time
        {
            client.advance(to: next)
            server.advance(to: next)
            pump()
        }
        client.advance(to: time)
        server.advance(to: time)
        pump()
    }

    mutating func advance(by delay: Duration) { advance(to: now + delay) }
}
