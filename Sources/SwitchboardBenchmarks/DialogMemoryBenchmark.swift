import CAllocationCounter
import Foundation
import SDP
import SIPAuthentication
import SIPMessage
import SIPUserAgent

// The signalling core's memory (issue 4 §9): bytes per idle confirmed dialog and per client registration in
// SIPUserAgent alone, with no transport, transaction layer, provider or media. Each repetition opens `n` of
// them in memory, from messages parsed off the wire as a peer would send them, and reads the heap in use
// (mallinfo2: bytes in use in every arena plus mmapped blocks) before and after; the difference divided by
// `n` is the figure. They are then dropped, and the next repetition starts from the same heap.
//
// - dialog-uas: `InviteSession(incoming:)` for sipp's INVITE (PCMU offer), answered 200, its ACK received:
//   state confirmed, no timer or transaction left; the session sits in an array and its dialog in a
//   `DialogTable`, as SessionDirectory keeps them.
// - registration: `RegistrationClient.start()`, a 401 digest challenge, the authorized REGISTER, a 200 with
//   the binding (expires 3600): state registered, the refresh timer armed.

/// Bytes in use on the heap now.
private func heapInUse() -> Int {
    Int(switchboard_heap_in_use())
}

/// SRTP is off in these sessions; a key source is still part of an OfferAnswer.
private struct FixedKeys: SRTPKeySource {
    mutating func makeKeyMaterial(count: Int) -> [UInt8]? { [UInt8](repeating: 7, count: count) }
}

private enum CoreMemoryError: Error {
    case unexpected(String)
}

private func parseRequest(_ text: String) throws -> SIPRequest {
    try SIPRequest(parsing: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
}

private func parseResponse(_ text: String) throws -> SIPResponse {
    try SIPResponse(parsing: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
}

/// sipp's INVITE (as scripts/bench-memory sends it) for call `i`.
private func invite(_ i: Int) throws -> SIPRequest {
    let sdp = """
        v=0
        o=user1 53655765 2353687637 IN IP4 127.0.0.1
        s=-
        c=IN IP4 127.0.0.1
        t=0 0
        m=audio 6000 RTP/AVP 0
        a=rtpmap:0 PCMU/8000

        """
    let body = sdp.replacingOccurrences(of: "\n", with: "\r\n")
    let head = """
        INVITE sip:service@127.0.0.1:5460 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:5461;branch=z9hG4bK-\(i)-1-0
        From: sipp <sip:sipp@127.0.0.1:5461>;tag=4242SIPpTag00\(i)
        To: service <sip:service@127.0.0.1:5460>
        Call-ID: \(i)-4242@127.0.0.1
        CSeq: 1 INVITE
        Contact: sip:sipp@127.0.0.1:5461
        Max-Forwards: 70
        Subject: Performance Test
        Content-Type: application/sdp
        Content-Length: \(body.utf8.count)


        """
    return try SIPRequest(parsing: Array((head.replacingOccurrences(of: "\n", with: "\r\n") + body).utf8))
}

private func ack(_ i: Int, toTag: String) throws -> SIPRequest {
    try parseRequest(
        """
        ACK sip:service@127.0.0.1:5460 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:5461;branch=z9hG4bK-\(i)-2-0
        From: sipp <sip:sipp@127.0.0.1:5461>;tag=4242SIPpTag00\(i)
        To: service <sip:service@127.0.0.1:5460>;tag=\(toTag)
        Call-ID: \(i)-4242@127.0.0.1
        CSeq: 1 ACK
        Contact: sip:sipp@127.0.0.1:5461
        Max-Forwards: 70
        Content-Length: 0


        """)
}

/// The provider's session settings (SessionSetup.configuration): 100rel supported, session timer
/// 1800 s, a User-Agent.
private func sessionConfiguration() throws -> InviteSessionConfiguration {
    InviteSessionConfiguration(
        contact: try NameAddress("<sip:service@127.0.0.1:5460>"), reliableProvisionalResponses: .supported,
        sessionTimer: SessionTimerConfiguration(interval: 1800), userAgent: "Switchboard/bench")
}

/// The provider's codecs (SessionSetup.offerAnswer): one list, shared by every session.
private let codecs: [Codec] = [.opus(), .pcmu, .pcma, .telephoneEvent()]

private func offerAnswer() -> OfferAnswer {
    OfferAnswer(
        configuration: OfferAnswerConfiguration(
            address: "127.0.0.1", rtpPort: 20_000, codecs: codecs, srtpPolicy: .off),
        random: SystemRandomNumberGenerator(), keySource: FixedKeys())
}

/// Opens `n` confirmed UAS dialogs; they stay alive until the returned value goes.
private func openDialogs(_ n: Int) throws -> (sessions: [InviteSession], table: DialogTable<Int>) {
    var sessions: [InviteSession] = []
    sessions.reserveCapacity(n)
    var table = DialogTable<Int>()
    let configuration = try sessionConfiguration()
    for i in 0..<n {
        let request = try invite(i)
        var session = InviteSession(
            incoming: request, transaction: ServerTransactionToken(rawValue: UInt64(i)),
            localTag: "sb\(String(UInt64(i) &* 0x9E37_79B9_7F4A_7C15, radix: 36))", configuration: configuration,
            offerAnswer: offerAnswer(), random: SystemRandomNumberGenerator())
        var actions = session.start()
        actions += session.answer(headers: [])
        actions += session.receiveACK(try ack(i, toTag: session.localTag))
        for action in actions {
            if case .dialogCreated(let id) = action { table.insert(i, for: id) }
            if case .dialogTerminated(let id) = action { _ = table.remove(id) }
        }
        guard session.state == .confirmed else {
            throw CoreMemoryError.unexpected("dialog \(i) is \(session.state), not confirmed")
        }
        sessions.append(session)
    }
    return (sessions, table)
}

/// Registers `n` accounts against a scripted registrar (401 challenge, then 200).
private func openRegistrations(_ n: Int) throws -> [RegistrationClient] {
    var clients: [RegistrationClient] = []
    clients.reserveCapacity(n)
    let registrar = try SIPURI("sip:example.com")
    for i in 0..<n {
        let user = "user\(i)"
        let configuration = RegistrationConfiguration(
            addressOfRecord: try SIPURI("sip:\(user)@example.com"), registrar: registrar,
            contact: try SIPURI("sip:\(user)@127.0.0.1:5460"), expires: 3600, userAgent: "Switchboard/bench")
        let authenticator = DigestAuthenticator(random: SystemRandomNumberGenerator()) { realm in
            realm == "example.com" ? DigestCredentials(username: user, password: "secret\(i)") : nil
        }
        var client = RegistrationClient(
            configuration: configuration, callID: "reg-\(i)-\(UInt64(i) &* 0x9E37_79B9_7F4A_7C15)",
            fromTag: "rt\(i)", authenticator: authenticator)
        func lastRequest(_ actions: [RegistrationClient.Action]) -> SIPRequest? {
            actions.reduce(nil) { last, action in
                if case .send(let request) = action { return request }
                return last
            }
        }
        func reply(_ request: SIPRequest, _ status: String, _ extra: String) throws -> SIPResponse {
            let cseq = (try request.cseq)?.sequenceNumber ?? 1
            return try parseResponse(
                """
                SIP/2.0 \(status)
                Via: SIP/2.0/UDP 127.0.0.1:5460;branch=z9hG4bK-reg-\(i)-\(cseq);received=127.0.0.1;rport=5460
                From: <sip:\(user)@example.com>;tag=rt\(i)
                To: <sip:\(user)@example.com>;tag=registrar\(i)
                Call-ID: \(client.callID)
                CSeq: \(cseq) REGISTER
                \(extra)
                Server: registrar
                Content-Length: 0


                """)
        }
        guard let first = lastRequest(client.start()) else {
            throw CoreMemoryError.unexpected("registration \(i) sent nothing")
        }
        let challenge = try reply(
            first, "401 Unauthorized",
            "WWW-Authenticate: Digest realm=\"example.com\", nonce=\"n\(i)x\(UInt64(i) &* 0x2545_F491_4F6C_DD1D)\", "
                + "algorithm=MD5, qop=\"auth\"")
        guard let second = lastRequest(client.receive(challenge)) else {
            throw CoreMemoryError.unexpected("registration \(i) did not answer the challenge")
        }
        _ = client.receive(
            try reply(second, "200 OK", "Contact: <sip:\(user)@127.0.0.1:5460>;expires=3600\nDate: today"))
        guard case .registered = client.state else {
            throw CoreMemoryError.unexpected("registration \(i) is \(client.state), not registered")
        }
        clients.append(client)
    }
    return clients
}

/// Prints `RESULT switchboard memory <row> bytes_med bytes_min bytes_max reps n` for dialogs and
/// registrations (bytes per item, from mallinfo2).
func runCoreMemoryBenchmark(n: Int, repetitions: Int) {
    let count = max(1, n)
    let reps = max(1, repetitions)
    print("# switchboard signalling-core memory: n=\(count) reps=\(reps) (heap in use per item, mallinfo2)")
    print("# dialog-uas: an idle confirmed UAS InviteSession + its DialogTable entry (no media, no transactions)")
    print("# registration: a RegistrationClient registered after a digest challenge (refresh armed)")
    print("# columns: RESULT stack memory row bytes_med bytes_min bytes_max reps n")
    func row(_ name: String, _ open: (Int) throws -> Any) {
        do {
            _ = try open(min(count, 100))  // warm-up: metadata, caches, the first allocations of each kind
            var samples: [Double] = []
            for _ in 0..<reps {
                let before = heapInUse()
                let opened = try open(count)
                let after = heapInUse()
                withExtendedLifetime(opened) {}
                samples.append(Double(after - before) / Double(count))
            }
            samples.sort()
            let columns = [
                "RESULT", "switchboard", "memory", name, String(Int(samples[samples.count / 2].rounded())),
                String(Int(samples[0].rounded())), String(Int(samples[samples.count - 1].rounded())), String(reps),
                String(count),
            ]
            print(columns.joined(separator: "\t"))
        } catch {
            print("# \(name): failed: \(error)")
        }
    }
    row("dialog-uas") { try openDialogs($0) }
    row("registration") { try openRegistrations($0) }
}
