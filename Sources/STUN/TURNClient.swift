/// A TURN client for one allocation (RFC 8656), sans-I/O: the driver passes what the server sent and the
/// current instant in, and carries out the ``TURNClientAction``s that come back.
///
/// ``start(at:)`` sends an Allocate with REQUESTED-TRANSPORT UDP; the server's 401 challenge is answered with
/// the long-term credentials (USERNAME, REALM, NONCE, MESSAGE-INTEGRITY; with an RFC 8489 server that offers
/// PASSWORD-ALGORITHMS also the chosen PASSWORD-ALGORITHM, its key, and MESSAGE-INTEGRITY-SHA256) and 438 Stale
/// Nonce with the new nonce, a bounded number of times. Once allocated, the client refreshes the allocation, its permissions and
/// its channels before they expire (``TURNClientConfiguration/refreshMargin``). ``send(_:to:at:)`` relays
/// application data to a peer: as a Send indication, or as ChannelData once ``bindChannel(to:at:)`` has bound
/// a channel; data from peers comes back as ``TURNClientEvent/data(peer:payload:)``. ``close(at:)`` deletes the
/// allocation (Refresh with LIFETIME 0).
///
/// Every request is a client transaction on the schedule of ``STUNTransactionTimers`` (RTO, Rc, Rm over UDP;
/// Ti over TCP and TLS). Transaction IDs come from the injected generator. Success responses must carry a
/// MESSAGE-INTEGRITY that verifies with the long-term key, or they are discarded (RFC 8489 §9.2.5).
public struct TURNClient<Random: RandomNumberGenerator>: CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Where the allocation is.
    public enum State: Hashable, Sendable {
        /// Built, not started.
        case idle
        /// The Allocate transaction is running.
        case allocating
        /// The server allocated the relayed address.
        case allocated
        /// ``close(at:)`` was called; the Refresh with LIFETIME 0 is running.
        case closing
        /// Deleted, or closed before it existed.
        case closed
        /// The allocation failed or was lost.
        case failed(TURNFailure)
    }

    /// The state.
    public internal(set) var state: State = .idle
    /// The configuration.
    public let configuration: TURNClientConfiguration
    /// The relayed transport address (XOR-RELAYED-ADDRESS) once allocated.
    public internal(set) var relayedAddress: STUNTransportAddress?
    /// The client's reflexive address the server saw (XOR-MAPPED-ADDRESS) once allocated.
    public internal(set) var mappedAddress: STUNTransportAddress?
    /// When the allocation expires unless refreshed.
    public internal(set) var expiresAt: STUNInstant?

    var random: Random
    var auth: Authentication?
    var transactions: [Transaction] = []
    var permissions: [Permission] = []
    var channels: [Channel] = []
    var refreshAt: STUNInstant?
    var nextChannelNumber = TURNChannelNumber.first.rawValue
    var armedAt: STUNInstant?
    var framer: TURNStreamFramer

    /// The realm, nonce and long-term key after the server's 401 challenge, with the PASSWORD-ALGORITHMS it
    /// offered (to echo) and the one chosen, when it offered any.
    struct Authentication {
        var realm: String
        var nonce: String
        let key: STUNKey
        let offeredAlgorithms: STUNAttribute?
        let algorithm: STUNPasswordAlgorithm?
    }

    /// A permission for one peer IP address (§9): installed once the first CreatePermission (or ChannelBind)
    /// succeeded.
    struct Permission {
        let address: STUNIPAddress
        var isInstalled = false
        var refreshAt: STUNInstant?
        var isPending = false
    }

    /// A channel bound, or being bound, to one peer (§12).
    struct Channel {
        let number: TURNChannelNumber
        let peer: STUNTransportAddress
        var isBound = false
        var refreshAt: STUNInstant?
        var isPending = false
    }

    /// What a transaction is for.
    enum Purpose: Hashable {
        case allocate
        case refresh(lifetime: UInt32?)
        case createPermission(STUNIPAddress)
        case channelBind(TURNChannelNumber, STUNTransportAddress)

        var method: STUNMethod {
            switch self {
            case .allocate: .allocate
            case .refresh: .refresh
            case .createPermission: .createPermission
            case .channelBind: .channelBind
            }
        }
    }

    /// One request in flight.
    struct Transaction {
        let id: STUNTransactionID
        let purpose: Purpose
        let bytes: [UInt8]
        var schedule: STUNRetransmissionSchedule
        let staleNonceRetries: Int
        let isAuthenticated: Bool
    }

    /// - Parameters:
    ///   - configuration: credentials, transport and limits.
    ///   - random: where transaction IDs come from (a seeded generator in tests,
    ///     `SystemRandomNumberGenerator` otherwise).
    public init(configuration: TURNClientConfiguration, random: Random) {
        self.configuration = configuration
        self.random = random
        self.framer = TURNStreamFramer()
    }

    // MARK: - Events in

    /// Sends the Allocate request. Only the first call has an effect.
    public mutating func start(at now: STUNInstant) -> [TURNClientAction] {
        guard case .idle = state else { return [] }
        state = .allocating
        var actions = startTransaction(.allocate, at: now)
        return finish(&actions)
    }

    /// Asks the server for a permission for `peer` (§10), so that its packets are relayed; refreshed before
    /// the 300-s permission lifetime ends. Asking again for an address that has one does nothing.
    public mutating func createPermission(for peer: STUNIPAddress, at now: STUNInstant) -> [TURNClientAction] {
        guard case .allocated = state else { return [] }
        var actions: [TURNClientAction] = []
        requestPermission(for: peer, at: now, into: &actions)
        return finish(&actions)
    }

    /// Binds a channel to `peer` (§12), installing its permission too; refreshed before the 600-s binding
    /// lifetime ends. Binding a peer that has a channel does nothing.
    public mutating func bindChannel(to peer: STUNTransportAddress, at now: STUNInstant) -> [TURNClientAction] {
        guard case .allocated = state, !channels.contains(where: { $0.peer == peer }) else { return [] }
        var actions: [TURNClientAction] = []
        guard channels.count < configuration.maximumChannels,
            let number = TURNChannelNumber(rawValue: nextChannelNumber)
        else {
            let failure = TURNFailure(.limitReached, method: .channelBind, reason: "\(channels.count) channels")
            actions.append(.event(.channelFailed(peer: peer, failure)))
            return finish(&actions)
        }
        nextChannelNumber += 1
        channels.append(Channel(number: number, peer: peer, isPending: true))
        actions += startTransaction(.channelBind(number, peer), at: now)
        return finish(&actions)
    }

    /// Relays `payload` to `peer` through the allocation: as ChannelData when a channel is bound to the peer,
    /// otherwise as a Send indication (§11.2, §12.5). A peer without a permission gets one asked for first;
    /// the server drops what arrives before it is installed. Nothing is sent unless allocated.
    public mutating func send(_ payload: [UInt8], to peer: STUNTransportAddress, at now: STUNInstant)
        -> [TURNClientAction]
    {
        guard case .allocated = state else { return [] }
        if let channel = channels.first(where: { $0.peer == peer && $0.isBound }) {
            let message = TURNChannelData(channel: channel.number, payload: payload)
            return [.send(message.encoded(isStream: configuration.isReliable))]
        }
        var actions: [TURNClientAction] = []
        if !permissions.contains(where: { $0.address == peer.address }) {
            requestPermission(for: peer.address, at: now, into: &actions)
        }
        let id = STUNTransactionID.random(using: &random)
        let indication = STUNMessage(
            .indication, .send, transactionID: id,
            attributes: [.xorPeerAddress(peer, transactionID: id), .data(payload)])
        actions.append(.send(indication.encoded()))
        return finish(&actions)
    }

    /// Refreshes the allocation now, whatever its schedule (§8). Does nothing unless allocated or while a
    /// Refresh is running.
    public mutating func refresh(at now: STUNInstant) -> [TURNClientAction] {
        guard case .allocated = state, !transactions.contains(where: { $0.purpose.method == .refresh }) else {
            return []
        }
        refreshAt = nil
        var actions = startTransaction(.refresh(lifetime: configuration.requestedLifetime), at: now)
        return finish(&actions)
    }

    /// Deletes the allocation: a Refresh with LIFETIME 0 (§8); ``TURNClientEvent/closed`` follows its
    /// response or timeout. Before the allocation exists the client closes at once.
    public mutating func close(at now: STUNInstant) -> [TURNClientAction] {
        var actions: [TURNClientAction] = []
        switch state {
        case .allocated:
            transactions.removeAll()
            permissions.removeAll()
            channels.removeAll()
            refreshAt = nil
            state = .closing
            actions += startTransaction(.refresh(lifetime: 0), at: now)
        case .idle, .allocating:
            transactions.removeAll()
            state = .closed
            actions.append(.event(.closed))
        case .closing, .closed, .failed:
            break
        }
        return finish(&actions)
    }

    /// The timer fired: retransmits, times out, and refreshes whatever is due. A call before anything is due
    /// does nothing.
    public mutating func timerFired(at now: STUNInstant) -> [TURNClientAction] {
        armedAt = nil
        var actions: [TURNClientAction] = []
        var index = 0
        while index < transactions.count {
            guard let step = transactions[index].schedule.fired(at: now) else {
                index += 1
                continue
            }
            switch step {
            case .retransmit:
                actions.append(.send(transactions[index].bytes))
                index += 1
            case .timeout:
                let transaction = transactions.remove(at: index)
                let failure = TURNFailure(.timeout, method: transaction.purpose.method)
                fail(transaction.purpose, failure, into: &actions)
            }
        }
        refreshDue(at: now, into: &actions)
        return finish(&actions)
    }

    /// One UDP datagram from the server, or one frame cut from a stream: a STUN message or ChannelData.
    /// Anything that is neither, or that matches nothing, is ignored.
    public mutating func receive(_ bytes: [UInt8], at now: STUNInstant) -> [TURNClientAction] {
        guard let first = bytes.first else { return [] }
        if TURNChannelData.isChannelData(firstByte: first) {
            guard let message = try? TURNChannelData(decoding: bytes, isStream: configuration.isReliable) else {
                return []
            }
            return receive(message)
        }
        guard let received = try? STUNReceivedMessage(decoding: bytes, limits: configuration.decodingLimits) else {
            return []
        }
        return receive(received, at: now)
    }

    /// Bytes read from the TCP or TLS stream to the server, in whatever pieces the reads returned; whole frames
    /// are handled as they complete. A framing fault fails the allocation (the stream cannot recover).
    public mutating func receive(streamBytes bytes: [UInt8], at now: STUNInstant) -> [TURNClientAction] {
        var actions: [TURNClientAction] = []
        do throws(TURNFramingError) {
            try framer.append(bytes)
            while let frame = try framer.nextFrame() {
                switch frame {
                case .stun(let message): actions += receive(message, at: now)
                case .channelData(let message): actions += receive(message)
                }
            }
        } catch {
            switch state {
            case .closed, .failed: break
            default:
                let failure = TURNFailure(.streamFraming, method: .allocate, reason: error.description)
                abandon(failure, into: &actions)
            }
        }
        return finish(&actions)
    }

    // MARK: - Introspection

    /// The peer addresses with an installed permission.
    public var permittedPeers: [STUNIPAddress] { permissions.filter(\.isInstalled).map(\.address) }

    /// The channel bound to `peer`, if any.
    public func channel(for peer: STUNTransportAddress) -> TURNChannelNumber? {
        channels.first { $0.peer == peer && $0.isBound }?.number
    }

    /// `TURNClient(allocated, relayed 192.0.2.15:50000, user alice)`; never the password or the key.
    public var description: String {
        let relayed = relayedAddress.map { ", relayed \($0)" } ?? ""
        return "TURNClient(\(state)\(relayed), user \(configuration.credentials.username))"
    }

    public var debugDescription: String { description }

    /// The public state only; the key and the password stay out of `dump`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "state": state, "relayedAddress": relayedAddress as Any, "mappedAddress": mappedAddress as Any,
                "configuration": configuration,
            ])
    }
}

extension TURNClient: Sendable where Random: Sendable {}
