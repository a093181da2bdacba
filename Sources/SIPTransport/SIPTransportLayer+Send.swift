public import SIPMessage

extension SIPTransportLayer {
    // MARK: Requests

    /// Sends a request to `destination`: UDP from the listening socket (so registrars store the right
    /// source), TCP/TLS over an existing connection to the same peer or a new one. A UDP request larger than
    /// `udpSwitchThreshold` goes over TCP instead (`sizedForTransport`).
    /// `completion` reports a transport error (connection refused, TLS verification) or success.
    public func send(
        request: SIPRequest, to destination: Destination, completion: ((TransportError?) -> Void)? = nil
    ) {
        let (request, destination) = sizedForTransport(request, to: destination)
        send(bytes: request.serialized(), to: destination, flow: nil, completion: completion)
    }

    /// The request and destination a send really uses: a UDP request larger than `udpSwitchThreshold` goes
    /// over TCP when there is a TCP listener (RFC 3261 §18.1.1), its top Via rewritten to say so. A client
    /// transaction starts from this, so its retransmissions and the ACK of a non-2xx (§17.1.1.3: same
    /// address, port and transport) follow the switch.
    public func sizedForTransport(_ request: SIPRequest, to destination: Destination) -> (SIPRequest, Destination) {
        guard destination.transport == .udp, let threshold = configuration.udpSwitchThreshold,
            request.serializedCount > threshold,
            listeningAddress(.tcp, family: destination.address.family) != nil
        else { return (request, destination) }
        var request = request
        var destination = destination
        destination.transport = .tcp
        if let index = request.headerFields.firstIndex(of: .via),
            var vias = try? request.headerFields.vias(at: index), !vias.isEmpty
        {
            vias[0].transport = "TCP"
            if let local = localAddress(for: destination) { vias[0].port = local.port }
            request.headerFields.replaceField(at: index, with: vias, name: .via)
        }
        return (request, destination)
    }

    /// Sends a response to a request that arrived as `incoming`, as RFC 3261 §18.2.2 and RFC 3581 §4 say:
    /// over the same connection for streams (or a new one to the Via's sent-by if it closed); for UDP to the
    /// `received` address and the `rport` port if present, else the sent-by port.
    public func send(
        response: SIPResponse, toRequest incoming: IncomingMessage, completion: ((TransportError?) -> Void)? = nil
    ) {
        let bytes = response.serialized()
        if let flow = incoming.flow, connections[flow] != nil {
            send(bytes: bytes, to: nil, flow: flow, completion: completion)
            return
        }
        guard let destination = responseDestination(response, incoming: incoming) else {
            completion?(TransportError(.invalidAddress, "no usable Via in the response"))
            return
        }
        send(bytes: bytes, to: destination, flow: nil, completion: completion)
    }

    /// Where a response goes when there is no connection to reuse (§18.2.2).
    func responseDestination(_ response: SIPResponse, incoming: IncomingMessage) -> Destination? {
        // The response's Via is usually the request's, copied: its summary, read on arrival, serves.
        guard let via = response.headerFields.topViaSummary(reusing: incoming.topVia) else {
            return Destination(transport: incoming.transport, address: incoming.source)
        }
        let transport = TransportProtocol(token: via.transport) ?? incoming.transport
        var address = incoming.source
        if let received = via.received, let ip = SocketAddress(ip: received, port: 0) {
            address = ip
        }
        if case .value(let port)? = via.rport {
            address = address.with(port: port)
        } else if via.rport == nil {
            address = address.with(port: via.port ?? transport.defaultPort)
        }
        return Destination(transport: transport, address: address)
    }

    /// Sends raw bytes on a flow or to a destination.
    func send(bytes: [UInt8], to destination: Destination?, flow: FlowID?, completion: ((TransportError?) -> Void)?) {
        if let flow {
            guard let connection = connections[flow] else {
                completion?(TransportError(.connectionClosed, "\(flow) is closed"))
                return
            }
            write(bytes, on: connection, completion: completion)
            return
        }
        guard let destination else {
            completion?(TransportError(.invalidAddress, "no destination"))
            return
        }
        switch destination.transport {
        case .udp:
            guard let listener = udpListeners.first(where: { $0.address.family == destination.address.family }) else {
                completion?(TransportError(.notListening, "no UDP listener for \(destination.address.family)"))
                return
            }
            let failure = bytes.withUnsafeBytes { raw -> TransportError? in
                do throws(TransportError) {
                    try listener.channel.send(raw, to: destination.address)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                completion?(failure)
                return
            }
            statistics.messagesSent += 1
            onTrace?(
                TraceRecord(
                    direction: .outgoing, transport: .udp, local: listener.address, remote: destination.address,
                    time: loop.now, bytes: bytes))
            completion?(nil)
        case .tcp, .tls, .ws, .wss:
            if let connection = connection(for: destination, opening: false) {
                write(bytes, on: connection, completion: completion)
                return
            }
            do {
                let connection = try openConnection(to: destination)
                connection.pending.append((bytes, completion))
            } catch {
                completion?(error)
            }
        }
    }

    func write(_ bytes: [UInt8], on connection: StreamConnection, completion: ((TransportError?) -> Void)?) {
        guard connection.state == .established else {
            connection.pending.append((bytes, completion))
            return
        }
        do {
            try connection.enqueueMessage(bytes)
            try connection.flush()
            connection.lastActivity = loop.now
            statistics.messagesSent += 1
            traceStream(bytes, on: connection)
            updateWriteInterest(connection)
            completion?(nil)
        } catch {
            completion?(error)
            closeConnection(connection, error: error)
        }
    }

    /// Writes bytes that are not a SIP message (WebSocket handshakes and control frames) as they are.
    func writeRaw(_ bytes: [UInt8], on connection: StreamConnection) {
        do {
            try connection.enqueue(bytes)
            try connection.flush()
            updateWriteInterest(connection)
        } catch {
            closeConnection(connection, error: error)
        }
    }

    func sendPending(_ connection: StreamConnection) throws(TransportError) {
        let pending = connection.pending
        connection.pending.removeAll()
        for item in pending {
            try connection.enqueueMessage(item.bytes)
            statistics.messagesSent += 1
            traceStream(item.bytes, on: connection)
        }
        try connection.flush()
        updateWriteInterest(connection)
        for item in pending { item.completion?(nil) }
    }

    func traceStream(_ bytes: [UInt8], on connection: StreamConnection) {
        // Keep-alive pings and pongs are not SIP messages.
        guard let onTrace, !bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) else { return }
        onTrace(
            TraceRecord(
                direction: .outgoing, transport: connection.transport, local: connection.local,
                remote: connection.remote, time: loop.now, bytes: bytes))
    }

    func failPending(_ connection: StreamConnection, _ error: TransportError) {
        let pending = connection.pending
        connection.pending.removeAll()
        for item in pending { item.completion?(error) }
    }

    // MARK: Connections

    func openConnection(to destination: Destination) throws(TransportError) -> StreamConnection {
        guard connections.count < configuration.maximumConnections else {
            throw TransportError(.tooManyConnections, "\(connections.count) connections open")
        }
        var session: TLSSession?
        if destination.transport.isSecure {
            let context = try clientTLS.get()
            session = try TLSSession(context: context, serverName: destination.serverName, address: destination.address)
        }
        var webSocket: WebSocketFlow?
        if destination.transport.isWebSocket {
            webSocket = try WebSocketFlow(
                clientHost: Self.webSocketHost(destination), resource: webSocketResource(for: destination),
                limits: webSocketLimits)
        }
        let channel = try network.connectStream(to: destination.address)
        let connection = StreamConnection(
            id: newFlowID(), channel: channel, transport: destination.transport, remote: destination.address,
            local: channel.localAddress ?? SocketAddress.loopback(), serverName: destination.serverName,
            isOutbound: true, state: .connecting, limits: configuration.parserLimits, now: loop.now)
        connection.tls = session
        connection.webSocket = webSocket
        do {
            try channel.watch(on: loop, writes: true) { [weak self] ready in
                self?.connectionReady(connection, ready: ready)
            }
        } catch {
            channel.close()
            throw error
        }
        connection.watchingWrites = true
        connections[connection.id] = connection
        connectionIndex[Self.key(destination)] = connection.id
        statistics.connectionsOpened += 1
        connection.connectTimer = loop.scheduleTimer(after: configuration.connectTimeout) { [weak self] in
            guard let self else { return }
            guard connection.state == .connecting || connection.state == .handshaking else { return }
            let error = TransportError(.timedOut, "connection to \(connection.remote) not established")
            self.failPending(connection, error)
            self.closeConnection(connection, error: error)
        }
        startIdleSweep()
        return connection
    }

    func finishConnect(_ connection: StreamConnection) {
        if let failure = connection.channel.connectError() {
            failPending(connection, failure)
            closeConnection(connection, error: failure)
            return
        }
        connection.local = connection.channel.localAddress ?? connection.local
        do {
            if let tls = connection.tls {
                connection.state = .handshaking
                _ = try tls.handshake()
                connection.outbox.append(contentsOf: tls.takeCiphertext())
                try connection.flush()
            } else if let request = connection.webSocket?.upgradeRequest {
                connection.state = .handshaking
                try connection.enqueue(request)
                try connection.flush()
            } else {
                connection.state = .established
                if let timer = connection.connectTimer { loop.cancelTimer(timer) }
                try sendPending(connection)
            }
            updateWriteInterest(connection)
        } catch {
            failPending(connection, error)
            closeConnection(connection, error: error)
        }
    }

    func updateWriteInterest(_ connection: StreamConnection) {
        guard connection.state != .closed else { return }
        let wantWrites = connection.hasUnsentBytes
        if wantWrites != connection.watchingWrites {
            connection.watchingWrites = wantWrites
            connection.channel.setWriteInterest(wantWrites)
        }
        if connection.state == .established, let timer = connection.connectTimer {
            loop.cancelTimer(timer)
            connection.connectTimer = nil
        }
    }

    /// The Host field of an upgrade to `destination`: the domain (or the address), with the port unless it
    /// is the scheme's (RFC 6455 §3, §4.1).
    static func webSocketHost(_ destination: Destination) -> String {
        let address = destination.address
        let host = destination.serverName ?? (address.family == .ipv6 ? "[\(address.host)]" : address.host)
        return address.port == destination.transport.defaultPort ? host : "\(host):\(address.port)"
    }

    func closeConnection(_ connection: StreamConnection, error: TransportError?, notify: Bool = true) {
        guard connection.state != .closed else { return }
        // Waiting for the server's close frame: it came, the server closed, or something failed.
        guard connection.state != .closing else { return finishClosing(connection) }
        // The WebSocket close handshake's first half (RFC 6455 §7.1.2): going away on shutdown or an error.
        if let frame = connection.webSocket?.close(error == nil && notify ? .normalClosure : .goingAway) {
            try? connection.enqueue(frame)
            try? connection.flush()
        }
        // A client closing cleanly waits (bounded) for the server's close frame and lets the server close
        // the TCP connection first (RFC 6455 §7.1.1); on shutdown it does not wait.
        let waits = connection.isOutbound && notify && connection.webSocket?.isClosing == true
        if waits {
            connection.state = .closing
            closingConnections[connection.id] = connection
            updateWriteInterest(connection)
            connection.closeTimer = loop.scheduleTimer(after: configuration.webSocketCloseTimeout) {
                [weak self] in
                self?.finishClosing(connection)
            }
        } else {
            connection.state = .closed
            connection.channel.close()
        }
        for timer in [connection.connectTimer, connection.keepAliveTimer, connection.pongTimer].compactMap({ $0 }) {
            loop.cancelTimer(timer)
        }
        failPending(connection, error ?? TransportError(.connectionClosed, "connection closed"))
        connections[connection.id] = nil
        for (key, id) in connectionIndex where id == connection.id { connectionIndex[key] = nil }
        if notify { onFlowEvent?(.closed(connection.id, error)) }
    }

    /// The end of a WebSocket client's wait for the server's close frame: close the TCP connection.
    func finishClosing(_ connection: StreamConnection) {
        guard connection.state == .closing else { return }
        connection.state = .closed
        closingConnections[connection.id] = nil
        if let timer = connection.closeTimer {
            loop.cancelTimer(timer)
            connection.closeTimer = nil
        }
        connection.channel.close()
    }
}
