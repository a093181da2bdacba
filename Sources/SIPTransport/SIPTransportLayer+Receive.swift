import SIPMessage

extension SIPTransportLayer {
    // MARK: UDP

    func readDatagrams(_ channel: any DatagramChannel, local: SocketAddress) {
        // Bounded per wake-up so one busy socket cannot starve the loop.
        defer { isReceiveBacklogged = false }
        for _ in 0..<256 {
            guard let datagram = receiveBuffer.withUnsafeMutableBytes({ channel.receive(into: $0) }) else { return }
            let (count, source, queued) = (datagram.count, datagram.source, datagram.queuedNanoseconds)
            statistics.datagramsReceived += 1
            isReceiveBacklogged = queued > configuration.backlogDelayNanoseconds
            if isReceiveBacklogged { statistics.backloggedDatagrams += 1 }
            if count == 0 { continue }
            let bytes = Array(receiveBuffer[0..<count])
            // CRLF keep-alives over UDP are dropped; STUN (RFC 5626 §4.4.2's keep-alive) goes to its observers.
            if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { continue }
            if Self.isSTUN(bytes) {
                deliverSTUN(bytes, from: source)
                continue
            }
            do {
                let message = try Message(parsing: bytes, limits: configuration.parserLimits)
                deliver(message, transport: .udp, source: source, local: local, flow: nil)
            } catch {
                statistics.parseErrors += 1
                if let status = error.status {
                    sendErrorResponse(status: status, phrase: error.reasonPhrase, rawRequest: bytes) { response in
                        response.withUnsafeBytes { try? channel.send($0, to: source) }
                    }
                }
            }
        }
    }

    // MARK: Streams

    func acceptConnections(
        _ listener: any StreamListenerChannel, transport: TransportProtocol, local: SocketAddress, resource: String?
    ) {
        for _ in 0..<64 {
            guard let (client, remote) = listener.accept() else { return }
            guard connections.count < configuration.maximumConnections else {
                statistics.connectionsRefused += 1
                client.close()
                continue
            }
            let connection = StreamConnection(
                id: newFlowID(), channel: client, transport: transport, remote: remote,
                local: client.localAddress ?? local, serverName: nil, isOutbound: false,
                state: transport == .tcp ? .established : .handshaking, limits: configuration.parserLimits,
                now: loop.now)
            if transport.isSecure {
                guard let context = serverTLS, let session = try? TLSSession(context: context) else {
                    client.close()
                    continue
                }
                connection.tls = session
            }
            if transport.isWebSocket {
                connection.webSocket = WebSocketFlow(serverResource: resource ?? "/", limits: webSocketLimits)
            }
            do {
                try client.watch(on: loop, writes: false) { [weak self] ready in
                    self?.connectionReady(connection, ready: ready)
                }
            } catch {
                client.close()
                continue
            }
            statistics.connectionsAccepted += 1
            connections[connection.id] = connection
            connectionIndex[ConnectionKey(transport: transport, remote: remote, serverName: nil)] = connection.id
        }
    }

    /// WebSocket messages are bounded by the SIP message limit.
    var webSocketLimits: WebSocketLimits {
        WebSocketLimits(maximumMessageSize: configuration.parserLimits.maximumMessageSize)
    }

    func connectionReady(_ connection: StreamConnection, ready: StreamReadiness) {
        guard connection.state != .closed else { return }
        if connection.state == .connecting {
            guard !ready.isDisjoint(with: [.writable, .hangUp]) else { return }
            finishConnect(connection)
            return
        }
        if ready.contains(.writable) {
            do {
                try connection.flush()
            } catch {
                closeConnection(connection, error: error)
                return
            }
            updateWriteInterest(connection)
        }
        if !ready.isDisjoint(with: [.readable, .hangUp]) {
            readStream(connection)
        }
    }

    func readStream(_ connection: StreamConnection) {
        var plaintext: [UInt8] = []
        var peerClosed = false
        var readError: TransportError?
        // Read what is there, bounded by the buffer cap.
        while connection.framer.bufferedByteCount + plaintext.count < configuration.maximumBufferedBytes {
            let read = receiveBuffer.withUnsafeMutableBytes { connection.channel.read(into: $0) }
            if case .bytes(let count) = read {
                connection.lastActivity = loop.now
                if let tls = connection.tls {
                    receiveBuffer.withUnsafeBytes { tls.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                } else {
                    plaintext.append(contentsOf: receiveBuffer[0..<count])
                }
                if count < receiveBuffer.count { break }
            } else if case .end = read {
                peerClosed = true
                break
            } else {
                if case .failed(let error) = read { readError = error }
                break
            }
        }
        if let tls = connection.tls {
            do {
                if !tls.isHandshakeComplete, try tls.handshake() {
                    try secureChannelReady(connection)
                }
                if tls.isHandshakeComplete { try tls.readPlaintext(into: &plaintext) }
                connection.outbox.append(contentsOf: tls.takeCiphertext())
                try connection.flush()
                updateWriteInterest(connection)
            } catch {
                failPending(connection, error)
                closeConnection(connection, error: error)
                return
            }
        }
        if !plaintext.isEmpty {
            if connection.webSocket != nil {
                receiveWebSocket(plaintext, on: connection)
            } else {
                connection.framer.append(plaintext)
                drainFramer(connection)
            }
        }
        if connection.state != .closed, connection.framer.bufferedByteCount >= configuration.maximumBufferedBytes {
            closeConnection(connection, error: TransportError(.messageTooLarge, "read buffer limit"))
            return
        }
        if let readError {
            closeConnection(connection, error: readError)
        } else if peerClosed {
            closeConnection(connection, error: nil)
        }
    }

    func drainFramer(_ connection: StreamConnection) {
        while connection.state != .closed, let output = connection.framer.next() {
            switch output {
            case .message(let message):
                deliver(
                    message, transport: connection.transport, source: connection.remote, local: connection.local,
                    flow: connection.id)
            case .invalid(let error):
                statistics.parseErrors += 1
                _ = error
            case .ping:
                try? connection.enqueue([0x0D, 0x0A])
                try? connection.flush()
                updateWriteInterest(connection)
            case .pong:
                if let timer = connection.pongTimer {
                    loop.cancelTimer(timer)
                    connection.pongTimer = nil
                }
            case .needMore:
                return
            case .close(let error):
                statistics.parseErrors += 1
                closeConnection(
                    connection, error: TransportError(.connectionClosed, "framing error: \(error.reasonPhrase)"))
                return
            }
        }
    }

    /// The TLS handshake finished: SIP flows, or on WSS the WebSocket upgrade starts (the client sends it).
    func secureChannelReady(_ connection: StreamConnection) throws(TransportError) {
        guard let flow = connection.webSocket else {
            connection.state = .established
            try sendPending(connection)
            return
        }
        if let request = flow.upgradeRequest { try connection.enqueue(request) }
    }

    // MARK: WebSocket (RFC 7118)

    /// Plaintext on a WS/WSS connection: the upgrade, then frames, each data message one SIP message.
    func receiveWebSocket(_ bytes: [UInt8], on connection: StreamConnection) {
        guard let events = connection.webSocket?.receive(bytes) else { return }
        for event in events {
            guard connection.state != .closed else { return }
            switch event {
            case .send(let raw):
                if connection.webSocket?.isOpen == false {
                    // The echo of the peer's close: it may have closed the connection already.
                    try? connection.enqueue(raw)
                    try? connection.flush()
                } else {
                    writeRaw(raw, on: connection)
                }
            case .opened:
                connection.state = .established
                do {
                    try sendPending(connection)
                } catch {
                    failPending(connection, error)
                    closeConnection(connection, error: error)
                }
            case .message(let message):
                receiveWebSocketMessage(message, on: connection)
            case .pong:
                if let timer = connection.pongTimer {
                    loop.cancelTimer(timer)
                    connection.pongTimer = nil
                }
            case .closed(let error):
                failPending(connection, error ?? TransportError(.connectionClosed, "WebSocket closed"))
                closeConnection(connection, error: error)
            }
        }
    }

    /// One WebSocket message: one SIP message (RFC 7118 §5), or a parse error handled as for a datagram.
    func receiveWebSocketMessage(_ bytes: [UInt8], on connection: StreamConnection) {
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { return }
        do {
            let message = try Message(parsing: bytes, limits: configuration.parserLimits)
            deliver(
                message, transport: connection.transport, source: connection.remote, local: connection.local,
                flow: connection.id)
        } catch {
            statistics.parseErrors += 1
            if let status = error.status {
                sendErrorResponse(status: status, phrase: error.reasonPhrase, rawRequest: bytes) { response in
                    write(response, on: connection, completion: nil)
                }
            }
        }
    }

    // MARK: Delivery

    /// §18.2.1 for requests (received, rport), then hands the message up.
    func deliver(
        _ message: Message, transport: TransportProtocol, source: SocketAddress, local: SocketAddress, flow: FlowID?
    ) {
        statistics.messagesReceived += 1
        if let onTrace {
            onTrace(
                TraceRecord(
                    direction: .incoming, transport: transport, local: local, remote: source, time: loop.now,
                    bytes: message.serialized()))
        }
        var message = message
        var topVia: TopViaSummary?
        if case .request(var request) = message {
            if let flow { honourAlias(request, on: flow) }
            topVia = SIPTransportLayer.stampReceived(&request, source: source)
            message = .request(request)
        }
        var incoming = IncomingMessage(message: message, transport: transport, source: source, local: local, flow: flow)
        incoming.topVia = topVia
        onMessage?(incoming)
    }

    /// A request over a connection the peer opened whose top Via carries `alias` (RFC 5923 §6): requests
    /// to its sent-by then go over this connection instead of a new one. Only for a sent-by at the
    /// connection's own source address (another host's address would let a peer draw that host's requests to
    /// itself, the concern of RFC 5923 §11), and one alias per connection (the latest), so the table stays
    /// bounded by the connections.
    func honourAlias(_ request: SIPRequest, on flow: FlowID) {
        guard let connection = connections[flow], !connection.isOutbound, !connection.transport.isWebSocket,
            let summary = request.headerFields.topViaSummary, summary.hostKind != .hostname,
            TransportProtocol(token: summary.transport) == connection.transport,
            let via = try? request.topVia, via.parameters.contains("alias"),
            let sentBy = SocketAddress(ip: summary.host, port: summary.port ?? connection.transport.defaultPort),
            sentBy.with(port: 0) == connection.remote.with(port: 0), sentBy != connection.remote
        else { return }
        let key = ConnectionKey(transport: connection.transport, remote: sentBy, serverName: nil)
        if let alias = connection.alias, alias != key, connectionIndex[alias] == connection.id {
            connectionIndex[alias] = nil
        }
        // A connection of this side's own to that address stays the one used.
        if let other = connectionIndex[key], other != connection.id, connections[other] != nil { return }
        connectionIndex[key] = connection.id
        connection.alias = key
    }

    /// Adds `received` when the top Via's sent-by host is not the source address, and fills `rport` when
    /// the client asked for it (RFC 3261 §18.2.1, RFC 3581 §4).
    /// Returns the top Via's summary as the request now has it (read again only when it was rewritten),
    /// `nil` when it has no usable top Via.
    @discardableResult
    static func stampReceived(_ request: inout SIPRequest, source: SocketAddress) -> TopViaSummary? {
        // Most requests need nothing: sent-by is the source address and no rport was asked for. The top
        // Via's summary says so without parsing the Vias (and when it has none, neither would they parse).
        guard let summary = request.headerFields.topViaSummary else { return nil }
        if summary.rport == nil, summary.hostKind != .hostname,
            let address = SocketAddress(ip: summary.host, port: 0), address == source.with(port: 0)
        {
            return summary
        }
        guard let index = request.headerFields.firstIndex(of: .via) else { return summary }
        let vias: [Via]
        do {
            vias = try request.headerFields.vias(at: index)
        } catch {
            return summary
        }
        guard var top = vias.first else { return summary }
        let sourceHost = source.host
        var changed = false
        let sentByMatches: Bool = {
            guard let address = SocketAddress(ip: top.host.text, port: 0) else { return false }
            return address.with(port: 0) == source.with(port: 0)
        }()
        if !sentByMatches || top.rport != nil {
            top.received = sourceHost
            changed = true
        }
        if top.rport != nil {
            top.rport = .value(source.port)
            changed = true
        }
        guard changed else { return summary }
        request.headerFields.replaceField(at: index, with: [top] + vias.dropFirst(), name: .via)
        return request.headerFields.topViaSummary
    }
}
