import CAllocationCounter
import SIPMessage
import SIPTransaction

// Call flows through two transaction layers in one process: a client layer and a server layer, each with a
// minimal transaction user. One flow is INVITE -> 200 -> ACK (for the 2xx, sent by the client core outside
// any transaction) then BYE -> 200, with unique branches, Call-ID and tags per flow; the INVITE and its 200
// carry a 160-byte SDP body.
//
// Two carriages: "values" hands each Message to the other layer as a value; "wire" serializes it and parses
// the bytes again, as a socket would force. Two ways of getting the messages: prepared for a batch of flows
// before the batch is timed (the figure for the transaction layers themselves), or built by the TUs from
// templates inside the timed flow ("+tu": what a UA core on SIPMessage adds). After each flow the timers
// still armed (Timers L, M, and over UDP J and K) are fired at once, as if their time had passed, so both
// tables end every flow empty; the run checks that they do.

/// Which side of the in-process call a message is for.
enum BenchPeer: Hashable, Sendable {
    case client
    case server
}

/// The five messages of one flow, as the TUs send them.
struct FlowMessages {
    var invite: SIPRequest
    var ack: SIPRequest
    var bye: SIPRequest
    var inviteOK: SIPResponse
    var byeOK: SIPResponse
}

struct TransactionFlowBench {
    typealias Layer = TransactionLayer<BenchPeer>

    let isSerialized: Bool
    let isReliable: Bool
    /// The current flow's messages when they were prepared in advance; `nil` makes the TUs build them.
    var prepared: FlowMessages?
    var client: Layer
    var server: Layer
    /// Timers armed and not cancelled, per side; fired when the flow is over.
    var clientTimers: [TimerID] = []
    var serverTimers: [TimerID] = []
    var flow = 0
    var completedCalls = 0
    var failures = 0
    var messagesCarried = 0

    static let sdp = Array(
        ("v=0\r\no=- 20518 0 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n"
            + "m=audio 49170 RTP/AVP 0 8 101\r\na=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n").utf8)
    static let clientHost = SIPHost("192.0.2.10")
    static let serverHost = SIPHost("192.0.2.20")

    let inviteTemplate: SIPRequest
    let ackTemplate: SIPRequest
    let byeTemplate: SIPRequest
    let viaPrefix: String

    init(isSerialized: Bool, isReliable: Bool) {
        self.isSerialized = isSerialized
        self.isReliable = isReliable
        let transport = isReliable ? "TCP" : "UDP"
        inviteTemplate = Self.template(.invite, cseq: 1, transport: transport)
        ackTemplate = Self.template(.ack, cseq: 1, transport: transport)
        byeTemplate = Self.template(.bye, cseq: 2, transport: transport)
        viaPrefix = "SIP/2.0/\(transport) 192.0.2.10:5060;branch=z9hG4bK"
        let configuration = TransactionConfiguration(maximumTransactions: 1_000)
        client = Layer(configuration: configuration)
        server = Layer(configuration: configuration)
    }

    // MARK: One flow

    /// The messages of the next flow, built in advance.
    mutating func prepareNextFlow() -> FlowMessages? {
        flow &+= 1
        defer { flow &-= 1 }
        let invite = makeRequest(.invite, toTag: nil)
        let bye = makeRequest(.bye, toTag: "t" + String(flow, radix: 16))
        guard let inviteOK = makeOK(for: invite, withBody: true), let byeOK = makeOK(for: bye, withBody: false) else {
            return nil
        }
        let ack = makeRequest(.ack, toTag: "t" + String(flow, radix: 16))
        return FlowMessages(invite: invite, ack: ack, bye: bye, inviteOK: inviteOK, byeOK: byeOK)
    }

    /// Runs one call; returns whether it completed and left both tables empty.
    mutating func runFlow(_ messages: FlowMessages? = nil) -> Bool {
        flow &+= 1
        prepared = messages
        let callsBefore = completedCalls
        let invite = messages?.invite ?? makeRequest(.invite, toTag: nil)
        guard let started = try? client.sendRequest(invite, to: .server, isReliable: isReliable) else {
            failures += 1
            return false
        }
        process(started.actions, at: .client)
        fireRemainingTimers()
        let ok = completedCalls == callsBefore + 1 && client.count == 0 && server.count == 0
        if !ok { failures += 1 }
        return ok
    }

    /// Carries out actions produced by the layer on `side`; sends reach the other layer at once.
    mutating func process(_ actions: [Layer.Action], at side: BenchPeer) {
        for action in actions {
            switch action {
            case .send(let message, _, _):
                deliver(message, from: side)
            case .startTimer(let timer, _):
                if side == .client { clientTimers.append(timer) } else { serverTimers.append(timer) }
            case .cancelTimer(let timer):
                if side == .client {
                    if let i = clientTimers.lastIndex(of: timer) { clientTimers.remove(at: i) }
                } else if let i = serverTimers.lastIndex(of: timer) {
                    serverTimers.remove(at: i)
                }
            case .deliver(let event):
                if side == .client { clientCore(event) } else { serverCore(event) }
            }
        }
    }

    mutating func deliver(_ message: Message, from side: BenchPeer) {
        messagesCarried &+= 1
        var arriving = message
        if isSerialized {
            guard let parsed = try? Message(parsing: message.serialized()) else {
                failures += 1
                return
            }
            arriving = parsed
        }
        if side == .client {
            process(server.receive(arriving, from: .client, isReliable: isReliable), at: .server)
        } else {
            process(client.receive(arriving, from: .server, isReliable: isReliable), at: .client)
        }
    }

    /// The UAS: answers INVITE and BYE with 200 at once.
    mutating func serverCore(_ event: Layer.Event) {
        switch event {
        case .request(let request, let id, _):
            let isInvite = request.method == .invite
            guard
                let ok = (isInvite ? prepared?.inviteOK : prepared?.byeOK) ?? makeOK(for: request, withBody: isInvite),
                let actions = try? server.sendResponse(ok, in: id)
            else {
                failures += 1
                return
            }
            process(actions, at: .server)
        case .ack, .terminated:
            break
        case .cancel, .response, .strayResponse, .timeout, .transportError:
            failures += 1
        }
    }

    /// The UAC: ACKs the 2xx outside any transaction and hangs up with BYE; counts the BYE's 200.
    mutating func clientCore(_ event: Layer.Event) {
        switch event {
        case .response(let response, _):
            guard response.isFinal, let cseq = try? response.cseq else { return }
            guard response.isSuccess else {
                failures += 1
                return
            }
            if cseq.method == .invite {
                let ack: SIPRequest
                let bye: SIPRequest
                if let prepared {
                    (ack, bye) = (prepared.ack, prepared.bye)
                } else {
                    let toTag = (try? response.to)??.tag
                    (ack, bye) = (makeRequest(.ack, toTag: toTag), makeRequest(.bye, toTag: toTag))
                }
                deliver(.request(ack), from: .client)
                guard let started = try? client.sendRequest(bye, to: .server, isReliable: isReliable) else {
                    failures += 1
                    return
                }
                process(started.actions, at: .client)
            } else if cseq.method == .bye {
                completedCalls += 1
            }
        case .terminated:
            break
        case .request, .cancel, .ack, .strayResponse, .timeout, .transportError:
            failures += 1
        }
    }

    /// Fires what the flow left armed, as if time had run on: M, L (and over UDP K, J) end the transactions.
    mutating func fireRemainingTimers() {
        while let timer = clientTimers.popLast() { process(client.timerFired(timer), at: .client) }
        while let timer = serverTimers.popLast() { process(server.timerFired(timer), at: .server) }
    }

    // MARK: Messages, built as a UA core would

    /// The requests of a flow, built once with the typed API; each flow copies one and sets the header
    /// fields that change (as a UA core keeps a dialog's fixed fields and stamps the rest).
    static func template(_ method: SIPMethod, cseq: UInt32, transport: String) -> SIPRequest {
        guard let clientHost, let serverHost else {
            return SIPRequest(method: method, uri: .other(AbsoluteURI(scheme: "x", content: "y")))
        }
        var request = SIPRequest(method: method, uri: .sip(SIPURI(user: "bob", host: serverHost)))
        request.headerFields.append(.via, Via(transport: transport, host: clientHost, port: 5060, branch: "x"))
        request.headerFields.append(.maxForwards, 70)
        request.headerFields.append(
            .from, NameAddress(displayName: "Alice", uri: SIPURI(user: "alice", host: clientHost)))
        request.headerFields.append(.to, NameAddress(uri: SIPURI(user: "bob", host: serverHost)))
        request.headerFields.append(.callID, "x")
        request.headerFields.append(.cseq, CSeq(cseq, method))
        if method == .invite {
            request.headerFields.append(.contact, NameAddress(uri: SIPURI(user: "alice", host: clientHost, port: 5060)))
            request.headerFields.append(name: .contentType, value: "application/sdp")
            request.body = sdp
        }
        return request
    }

    /// A request of the current flow: unique branch, From tag and Call-ID; the To tag once there is one.
    func makeRequest(_ method: SIPMethod, toTag: String?) -> SIPRequest {
        let tag = String(flow, radix: 16)
        var request: SIPRequest
        let suffix: String
        switch method {
        case .invite:
            request = inviteTemplate
            suffix = "i"
        case .ack:
            request = ackTemplate
            suffix = "a"
        default:
            request = byeTemplate
            suffix = "b"
        }
        request.headerFields[.via] = viaPrefix + tag + suffix
        request.headerFields[.from] = "\"Alice\" <sip:alice@192.0.2.10>;tag=f" + tag
        if let toTag { request.headerFields[.to] = "<sip:bob@192.0.2.20>;tag=" + toTag }
        request.headerFields[.callID] = "c" + tag + "@192.0.2.10"
        return request
    }

    /// The UAS's 200: the request's Via, From, To (tagged), Call-ID and CSeq (§8.2.6.2), and for INVITE
    /// a Contact and the SDP answer.
    func makeOK(for request: SIPRequest, withBody: Bool) -> SIPResponse? {
        var fields = request.headerFields
        fields.removeAll(.maxForwards)
        fields.removeAll(.contact)
        fields.removeAll(.contentType)
        fields.removeAll(.contentLength)
        guard let to = fields[.to] else { return nil }
        if withBody { fields[.to] = to + ";tag=t" + String(flow, radix: 16) }
        var response = SIPResponse(statusCode: 200, headerFields: fields)
        if withBody {
            response.headerFields[.contact] = "<sip:bob@192.0.2.20:5060>"
            response.headerFields[.contentType] = "application/sdp"
            response.body = Self.sdp
        }
        return response
    }
}

/// Times `flows` flows; with `buildsMessages` false each batch of flows gets its messages prepared first,
/// outside the timed part. Returns the seconds spent in the timed part.
func timeFlows(_ bench: inout TransactionFlowBench, flows: Int, buildsMessages: Bool) -> Double {
    let batchSize = 64
    var seconds = 0.0
    var done = 0
    var batch: [FlowMessages] = []
    batch.reserveCapacity(batchSize)
    while done < flows {
        let count = min(batchSize, flows - done)
        batch.removeAll(keepingCapacity: true)
        if !buildsMessages {
            for k in 0..<count {
                bench.flow &+= k
                if let messages = bench.prepareNextFlow() { batch.append(messages) }
                bench.flow &-= k
            }
        }
        let start = ContinuousClock.now
        if buildsMessages {
            for _ in 0..<count { _ = bench.runFlow() }
        } else {
            for messages in batch { _ = bench.runFlow(messages) }
        }
        let elapsed = ContinuousClock.now - start
        seconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        done += count
    }
    return seconds
}

/// Runs `n` call flows `repetitions` times per row and prints one RESULT row each: flows per second
/// (median, min, max over the repetitions), nanoseconds per flow (median), heap allocations per flow; `only`
/// names one row (`--view values-udp`).
func runTransactionBenchmark(n: Int, repetitions: Int, only: String? = nil) {
    let flows = max(1, n)
    let reps = max(1, repetitions)
    print("# switchboard SIPTransaction benchmark: flows=\(flows) reps=\(reps)")
    print("# one flow: INVITE/200/ACK + BYE/200 through a client and a server TransactionLayer")
    print("# rows: values|wire (messages as values | serialized and parsed), udp|tcp, +tu (TUs build the messages)")
    print(
        "# columns: RESULT stack transactions row flows_per_s_med flows_per_s_min flows_per_s_max ns_per_flow_med"
            + " allocs_per_flow reps n")
    let rows: [(serialized: Bool, reliable: Bool, builds: Bool)] = [
        (false, false, false), (false, true, false), (true, false, false), (true, true, false),
        (false, false, true), (true, false, true),
    ]
    for row in rows {
        let name =
            (row.serialized ? "wire" : "values") + "-" + (row.reliable ? "tcp" : "udp") + (row.builds ? "+tu" : "")
        if let only, only != name { continue }
        var bench = TransactionFlowBench(isSerialized: row.serialized, isReliable: row.reliable)
        _ = timeFlows(&bench, flows: max(1, flows / 10), buildsMessages: row.builds)
        var rates: [Double] = []
        for _ in 0..<reps {
            rates.append(Double(flows) / timeFlows(&bench, flows: flows, buildsMessages: row.builds))
        }
        rates.sort()
        // Allocations of the flows alone: the messages are prepared before counting when the row says so.
        let allocationFlows = 500
        var batch: [FlowMessages] = []
        if !row.builds {
            for k in 0..<allocationFlows {
                bench.flow &+= k
                if let messages = bench.prepareNextFlow() { batch.append(messages) }
                bench.flow &-= k
            }
        }
        let before = switchboard_allocation_count()
        if row.builds {
            for _ in 0..<allocationFlows { _ = bench.runFlow() }
        } else {
            for messages in batch { _ = bench.runFlow(messages) }
        }
        let allocations = Double(switchboard_allocation_count() - before) / Double(allocationFlows)
        let median = rates[rates.count / 2]
        let columns: [String] = [
            "RESULT", "switchboard", "transactions", name, String(Int(median)), String(Int(rates[0])),
            String(Int(rates[rates.count - 1])), String(Int(1e9 / median)), String(Int(allocations.rounded())),
            String(reps), String(flows),
        ]
        print(columns.joined(separator: "\t"))
        if bench.failures > 0 {
            print("# \(name): \(bench.failures) flows failed (\(bench.completedCalls) completed)")
        }
    }
}
