import SIPMessage

extension SIPTransportLayer {
    // MARK: Holding flows open

    /// Keeps `flow` open through idle timeouts (a registration or dialog uses it). Balanced by `release`.
    public func retain(flow: FlowID) {
        connections[flow]?.holders += 1
    }

    /// Ends one `retain`.
    public func release(flow: FlowID) {
        if let connection = connections[flow], connection.holders > 0 { connection.holders -= 1 }
    }

    /// Whether `flow` is an open connection.
    public func isOpen(_ flow: FlowID) -> Bool { connections[flow] != nil }

    /// The connection to `destination`, if one is open (after a request was sent over it, for example).
    public func flow(to destination: Destination) -> FlowID? {
        connectionIndex[Self.key(destination)]
    }

    /// The local and remote addresses of a connection.
    public func addresses(of flow: FlowID) -> (local: SocketAddress, remote: SocketAddress)? {
        connections[flow].map { ($0.local, $0.remote) }
    }

    /// Closes a connection.
    public func close(flow: FlowID) {
        if let connection = connections[flow] { closeConnection(connection, error: nil) }
    }

    /// The number of open stream connections.
    public var connectionCount: Int { connections.count }

    // MARK: Keep-alives (RFC 5626 §4.4.1)

    /// Sends a CRLFCRLF ping on `flow` every `interval`; when no CRLF pong arrives within `pongTimeout` the
    /// flow is reported `.dead` and closed. `nil` stops the keep-alives.
    public func setKeepAlive(flow: FlowID, interval: Duration?) {
        guard let connection = connections[flow] else { return }
        if let timer = connection.keepAliveTimer { loop.cancelTimer(timer) }
        connection.keepAliveTimer = nil
        connection.keepAliveInterval = interval
        if interval != nil { scheduleKeepAlive(connection) }
    }

    func scheduleKeepAlive(_ connection: StreamConnection) {
        guard let interval = connection.keepAliveInterval else { return }
        connection.keepAliveTimer = loop.scheduleTimer(after: interval) { [weak self] in
            guard let self else { return }
            guard connection.state == .established else { return }
            self.ping(connection)
            self.scheduleKeepAlive(connection)
        }
    }

    /// A CRLFCRLF ping, or a WebSocket ping on WS/WSS (RFC 6455 §5.5.2, RFC 7118 §6).
    func ping(_ connection: StreamConnection) {
        if connection.webSocket != nil {
            guard let frame = connection.webSocket?.ping() else { return }
            writeRaw(frame, on: connection)
        } else {
            write([0x0D, 0x0A, 0x0D, 0x0A], on: connection, completion: nil)
        }
        guard connection.pongTimer == nil else { return }
        connection.pongTimer = loop.scheduleTimer(after: configuration.pongTimeout) { [weak self] in
            guard let self else { return }
            connection.pongTimer = nil
            guard connection.state != .closed else { return }
            self.onFlowEvent?(.dead(connection.id))
            self.closeConnection(connection, error: TransportError(.flowDead, "no pong from \(connection.remote)"))
        }
    }

    // MARK: Idle connections

    func startIdleSweep() {
        guard idleSweep == nil else { return }
        let period = max(configuration.idleTimeout / 4, .milliseconds(50))
        idleSweep = loop.scheduleTimer(after: period) { [weak self] in
            guard let self else { return }
            self.idleSweep = nil
            let now = self.loop.now
            for connection in Array(self.connections.values)
            where connection.holders == 0 && connection.keepAliveInterval == nil
                && connection.state == .established && !connection.hasUnsentBytes
                && now - connection.lastActivity >= self.configuration.idleTimeout
            {
                self.closeConnection(connection, error: nil)
            }
            if !self.connections.isEmpty || !self.streamListeners.isEmpty { self.startIdleSweep() }
        }
    }

    // MARK: Stateless error responses

    /// Answers a request the parser refused (400, 413, 414, 505, 513) with the headers it can still find
    /// (RFC 3261 §8.2.6.1 needs Via, From, To, Call-ID and CSeq). Without a Via there is no one to answer.
    func sendErrorResponse(status: Int, phrase: String, rawRequest bytes: [UInt8], send: ([UInt8]) -> Void) {
        guard let response = SIPTransportLayer.errorResponse(status: status, phrase: phrase, rawRequest: bytes) else {
            return
        }
        statistics.errorResponsesSent += 1
        send(response.serialized())
    }

    static func errorResponse(status: Int, phrase: String, rawRequest bytes: [UInt8]) -> SIPResponse? {
        var fields = SIPFields()
        var sawVia = false
        var lineStart = 0
        let limit = min(bytes.count, 16_384)
        var i = 0
        var first = true
        while i < limit {
            guard bytes[i] == 0x0A else {
                i += 1
                continue
            }
            var end = i
            if end > lineStart, bytes[end - 1] == 0x0D { end -= 1 }
            defer {
                lineStart = i + 1
                i += 1
            }
            if first {
                first = false
                continue
            }
            if end == lineStart { break }
            let line = bytes[lineStart..<end]
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let rawName = String(decoding: line[lineStart..<colon], as: UTF8.self).trimmingSpaces
            guard let name = SIPField.Name(rawName) else { continue }
            let keep: [SIPField.Name] = [.via, .from, .to, .callID, .cseq]
            guard keep.contains(name) else { continue }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
            fields.append(SIPField(name: name, value: value))
            if name == .via { sawVia = true }
        }
        guard sawVia else { return nil }
        return SIPResponse(statusCode: status, reasonPhrase: phrase, headerFields: fields)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
