import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport

/// The UAC side: runs `count` transactions toward the target, paced and bounded, then prints a summary.
final class EndpointClient: @unchecked Sendable {
    // @unchecked Sendable: used only on the core's event loop.
    let core: SIPCore
    let options: Options
    let done: (Int32) -> Void
    var destination: Destination?
    var targetURI: SIPURI?
    var started = 0
    var inFlight = 0
    var finishedCount = 0
    var statuses: [Int: Int] = [:]
    var timeouts: [Double] = []
    var transportErrors: [String] = []
    var startTimes: [TransactionID: ContinuousClock.Instant] = [:]
    var runStart = ContinuousClock.now

    init(core: SIPCore, options: Options, done: @escaping (Int32) -> Void) {
        self.core = core
        self.options = options
        self.done = done
    }

    func start() throws {
        guard let text = options.target, let uri = try? SIPURI(text) else {
            throw Options.Failure(message: "--target must be a SIP URI")
        }
        targetURI = uri
        var resolved = try SIPResolver(configuration: ResolverConfiguration(hostsFile: "/etc/hosts")).resolveNow(uri)
        if let transport = options.transport {
            resolved = resolved.map {
                Destination(transport: transport, address: $0.address, serverName: $0.serverName)
            }
        }
        guard var destination = resolved.first else { throw Options.Failure(message: "\(text) does not resolve") }
        if let name = options.serverName { destination.serverName = name }
        self.destination = destination
        // Listen where asked, else on an ephemeral port of the destination's family (UDP needs a socket).
        if options.listens.isEmpty {
            let any = destination.address.family == .ipv4 ? SocketAddress.loopback() : SocketAddress.loopbackIPv6()
            try core.transport.listen(.udp, on: any)
            if destination.transport == .tcp { try core.transport.listen(.tcp, on: any) }
        } else {
            for (transport, address) in options.listens { try core.transport.listen(transport, on: address) }
        }
        core.start()
        runStart = .now
        schedule()
    }

    /// Starts transactions while the concurrency bound and the rate allow.
    func schedule() {
        while started < options.count && inFlight < options.concurrency {
            if options.rate > 0 {
                let due = runStart + .milliseconds(Int(Double(started) * 1000 / options.rate))
                if due > .now {
                    core.loop.scheduleTimer(after: due - .now) { [weak self] in self?.schedule() }
                    return
                }
            }
            started += 1
            inFlight += 1
            if !send() {
                // Refused at once (the table is full, say): counted, and the loop goes on without recursing.
                inFlight -= 1
                finishedCount += 1
            }
        }
        if finishedCount == options.count { finish() }
    }

    /// Starts one transaction; false if it could not even start.
    func send() -> Bool {
        guard let destination, let uri = targetURI else { return false }
        let method = SIPMethod(rawValue: options.method) ?? .options
        var request = SIPRequest(method: method, uri: .sip(uri))
        let local = core.transport.localAddress(for: destination) ?? .loopback()
        request.headerFields.append(.maxForwards, 70)
        let hostText = local.host
        let host = SIPHost(hostText) ?? SIPHost("127.0.0.1")
        if let host {
            var from = NameAddress(uri: SIPURI(user: options.user, host: method == .register ? uri.host : host))
            from.tag = core.makeTag()
            request.headerFields.append(.from, from)
            let toURI = method == .register ? SIPURI(user: options.user, host: uri.host) : uri
            request.headerFields.append(.to, NameAddress(uri: toURI))
            request.headerFields.append(.callID, core.makeCallID())
            request.headerFields.append(.cseq, CSeq(1, method))
            var contact = SIPURI(user: options.user, host: host, port: local.port == 0 ? nil : local.port)
            if destination.transport != .udp { contact.transport = destination.transport.rawValue }
            if method == .invite || method == .register {
                request.headerFields.append(.contact, Contact.address(NameAddress(uri: contact)))
            }
        }
        switch method {
        case .register:
            request.headerFields.append(.expires, 60)
        case .message:
            request.headerFields.append(.contentType, MediaType.textPlain)
            request.body = Array("hello from switchboard".utf8)
        case .invite:
            request.headerFields.append(.contentType, MediaType.sdp)
            request.body = Array(
                "v=0\r\no=switchboard 1 1 IN IP4 \(hostText)\r\ns=-\r\nc=IN IP4 \(hostText)\r\nt=0 0\r\nm=audio 17600 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
                    .utf8)
        default:
            break
        }
        let sentAt = ContinuousClock.now
        do {
            var id: TransactionID?
            id = try core.sendRequest(request, to: destination) { [weak self] event in
                guard let self else { return }
                guard let id else { return }
                self.handle(event, transaction: id, sentAt: sentAt)
            }
        } catch {
            transportErrors.append("\(error)")
            return false
        }
        return true
    }

    var outcomeKnown: Set<TransactionID> = []

    /// A transaction counts as done at its first final response, timeout or transport error; the Completed
    /// state that follows (Timers D and K) only absorbs retransmissions.
    func handle(_ event: ClientTransactionEvent, transaction: TransactionID, sentAt: ContinuousClock.Instant) {
        if case .terminated = event, outcomeKnown.remove(transaction) != nil { return }
        guard !outcomeKnown.contains(transaction) else { return }
        switch event {
        case .response(let response):
            guard response.statusCode >= 200 else { return }
            statuses[response.statusCode, default: 0] += 1
        case .timeout:
            let elapsed = ContinuousClock.now - sentAt
            timeouts.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        case .transportError(let error):
            transportErrors.append(error.map { "\($0)" } ?? "transport error")
        case .terminated:
            break
        }
        outcomeKnown.insert(transaction)
        complete()
    }

    func complete() {
        inFlight -= 1
        finishedCount += 1
        schedule()
    }

    func finish() {
        guard finishedCount == options.count else { return }
        let elapsed = ContinuousClock.now - runStart
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let completed = statuses.values.reduce(0, +)
        let statusText = statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
        let t1 = Double(options.t1Milliseconds)
        let deviations = timeouts.map { abs($0 - 64 * t1) }
        var line =
            "summary sent=\(options.count) completed=\(completed) timeouts=\(timeouts.count) transport_errors=\(transportErrors.count) statuses=\(statusText.isEmpty ? "none" : statusText) retransmissions=\(core.statistics.requestRetransmissions) elapsed_s=\(String(seconds))"
        if !timeouts.isEmpty {
            line +=
                " timeout_ms_min=\(Int(timeouts.min() ?? 0)) timeout_ms_max=\(Int(timeouts.max() ?? 0)) timeout_deviation_ms_max=\(Int(deviations.max() ?? 0))"
        }
        emit(line)
        for error in Set(transportErrors) { emit("transport_error \(error)") }
        let expected = options.expect.isEmpty ? Set(200..<300) : options.expect
        let good = statuses.filter { expected.contains($0.key) }.values.reduce(0, +)
        let percent = options.count == 0 ? 100 : Double(good) * 100 / Double(options.count)
        // Linger before closing connections, so a peer finishes its side of the last exchange.
        core.loop.scheduleTimer(after: .milliseconds(300)) { [done] in
            done(percent >= self.options.minimumSuccessPercent ? 0 : 1)
        }
    }
}
