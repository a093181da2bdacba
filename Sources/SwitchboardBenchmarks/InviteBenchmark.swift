import CAllocationCounter
import Foundation
import SDP
import SIPMessage
import SIPUserAgent

// The UAS call of `switchboard answer --auto-answer` (issue 4 §9) in SIPUserAgent alone: no transport,
// transaction layer or provider. One call is the bench corpus's INVITE (01_invite.sip, an offer of PCMU, PCMA,
// G722 and telephone-event) parsed, `InviteSession(incoming:)`, `start()`, `ring()` (180), `answer()` (200
// with the SDP answer), its ACK (05_ack.sip) and BYE (06_bye.sip) parsed and received, each response sent
// serialized. The session is configured as SessionSetup configures it (100rel supported, session timer
// 1800 s, a User-Agent, Opus/PCMU/PCMA + telephone-event, SRTP off).
//
// Each call takes the next of 16 variants of that INVITE whose offers differ in session id, RTP port and
// codec order (`OfferVariants`), so no cache keyed on the offer's bytes can help.
//
// Rows (ns per call or per operation; min/median/max over the repetitions), each followed by an `ALLOCS` line
// with its heap allocations per call (counted on an untimed pass):
// - uas-call: the whole call as above.
// - parse-requests: parsing the three requests alone (SIPMessage's share of uas-call).
// - sdp-answer: the offer parsed, `receiveOffer`, `makeAnswer`, the answer serialized (SDP's share).
//
// For instruction counts run it under callgrind, collecting inside the call only:
//   valgrind --tool=callgrind --toggle-collect='*inviteBenchmarkCall*' \
//     .build/release/switchboard-bench --only invite --n 2000 --reps 1

private struct BenchKeys: SRTPKeySource {
    mutating func makeKeyMaterial(count: Int) -> [UInt8]? { [UInt8](repeating: 7, count: count) }
}

/// The three requests of a call, as received bytes.
private struct CallMessages {
    var invite: [UInt8]
    var ack: [UInt8]
    var bye: [UInt8]
}

/// Variants of one INVITE whose SDP offers differ in what a real caller varies from call to call: the `o=`
/// session id, the RTP port (and its `a=rtcp:`), and the order of the payload types with their attributes.
private struct OfferVariants {
    /// The offers' bytes.
    var offers: [[UInt8]] = []
    /// The INVITE carrying each offer, its Content-Length adjusted.
    var invites: [[UInt8]] = []

    init(invite: [UInt8], count: Int) throws {
        let text = String(decoding: invite, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw InviteBenchError.unexpected("no body") }
        let head = String(text[..<split.lowerBound])
        let body = String(text[split.upperBound...])
        for k in 0..<count {
            let offer = Self.vary(body, k)
            let lengthLine = "Content-Length: \(offer.utf8.count)"
            let lines = head.components(separatedBy: "\r\n").map {
                $0.lowercased().hasPrefix("content-length:") ? lengthLine : $0
            }
            offers.append(Array(offer.utf8))
            invites.append(Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + offer).utf8))
        }
    }

    /// Variant `k` of an SDP body: session id + k, port + 2k, payload types rotated by k (reversed for odd
    /// k / 4), with each rtpmap/fmtp line following its payload type.
    private static func vary(_ body: String, _ k: Int) -> String {
        var lines = body.components(separatedBy: "\r\n")
        var formatLines: [String: [String]] = [:]
        var formatOrder: [String] = []
        var firstFormatLine: Int?
        var kept: [String] = []
        for line in lines {
            if line.hasPrefix("a=rtpmap:") || line.hasPrefix("a=fmtp:") {
                let pt = String(line.drop { $0 != ":" }.dropFirst().prefix { $0 != " " })
                formatLines[pt, default: []].append(line)
                if firstFormatLine == nil { firstFormatLine = kept.count }
                continue
            }
            kept.append(line)
        }
        lines = kept
        for (i, line) in lines.enumerated() {
            var fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if line.hasPrefix("o="), fields.count > 2, let id = UInt64(fields[1]) {
                fields[1] = String(id + UInt64(k))
            } else if line.hasPrefix("m="), fields.count > 3, let port = Int(fields[1]) {
                fields[1] = String(port + 2 * k)
                var formats = Array(fields[3...])
                let r = k % formats.count
                formats = Array(formats[r...] + formats[..<r])
                if (k / 4) % 2 == 1 { formats.reverse() }
                formatOrder = formats
                fields = Array(fields[..<3]) + formats
            } else if line.hasPrefix("a=rtcp:"), let port = Int(line.dropFirst(7)) {
                fields = ["a=rtcp:" + String(port + 2 * k)]
            }
            lines[i] = fields.joined(separator: " ")
        }
        let ordered = formatOrder.flatMap { formatLines[$0] ?? [] }
        lines.insert(contentsOf: ordered, at: firstFormatLine ?? lines.count)
        return lines.joined(separator: "\r\n")
    }
}

/// What the session needs that stays the same from call to call (SessionSetup keeps these per provider).
private struct InviteBenchSetup {
    var configuration: InviteSessionConfiguration
    var offerAnswerConfiguration: OfferAnswerConfiguration
    /// The To tag of the ACK and BYE of the corpus: the session takes it as its own.
    var localTag = "a6c85cf-99887766"

    init() throws {
        configuration = InviteSessionConfiguration(
            contact: try NameAddress("<sip:bob@198.51.100.20:5060>"), reliableProvisionalResponses: .supported,
            sessionTimer: SessionTimerConfiguration(interval: 1800), userAgent: "Switchboard")
        offerAnswerConfiguration = OfferAnswerConfiguration(
            address: "198.51.100.20", rtpPort: 30_000, codecs: [.opus(), .pcmu, .pcma, .telephoneEvent()],
            srtpPolicy: .off)
    }
}

private enum InviteBenchError: Error {
    case unexpected(String)
}

/// Bytes of the responses the actions send, serialized as the transport would.
private func sendResponses(_ actions: [SessionAction], into checksum: inout Int) {
    for action in actions {
        if case .sendResponse(let response, _) = action { checksum &+= response.serialized().count }
    }
}

/// One call; returns a checksum of what it produced (the bytes sent), or throws when the call goes wrong.
@inline(never)
private func inviteBenchmarkCall(_ messages: CallMessages, _ setup: InviteBenchSetup, _ number: UInt64) throws -> Int {
    var checksum = 0
    let invite = try SIPRequest(parsing: messages.invite)
    var session = InviteSession(
        incoming: invite, transaction: ServerTransactionToken(rawValue: number), localTag: setup.localTag,
        configuration: setup.configuration,
        offerAnswer: OfferAnswer(
            configuration: setup.offerAnswerConfiguration, random: SystemRandomNumberGenerator(),
            keySource: BenchKeys()),
        random: SystemRandomNumberGenerator())
    sendResponses(session.start(), into: &checksum)
    checksum &+= session.offerAnswer.remoteDescription?.media.count ?? 0
    sendResponses(session.ring(), into: &checksum)
    sendResponses(session.answer(headers: []), into: &checksum)
    sendResponses(session.receiveACK(try SIPRequest(parsing: messages.ack)), into: &checksum)
    guard session.state == .confirmed else { throw InviteBenchError.unexpected("not confirmed: \(session.state)") }
    let bye = try SIPRequest(parsing: messages.bye)
    sendResponses(
        session.receiveRequest(bye, transaction: ServerTransactionToken(rawValue: number &+ 1)), into: &checksum)
    guard session.state == .terminated else { throw InviteBenchError.unexpected("not ended: \(session.state)") }
    return checksum
}

@inline(never)
private func inviteBenchmarkParse(_ messages: CallMessages) throws -> Int {
    let invite = try SIPRequest(parsing: messages.invite)
    let ack = try SIPRequest(parsing: messages.ack)
    let bye = try SIPRequest(parsing: messages.bye)
    return invite.bodyBytes.count &+ ack.bodyBytes.count &+ bye.bodyBytes.count
}

@inline(never)
private func inviteBenchmarkAnswer(_ offer: [UInt8], _ setup: InviteBenchSetup) throws -> Int {
    var offerAnswer = OfferAnswer(
        configuration: setup.offerAnswerConfiguration, random: SystemRandomNumberGenerator(), keySource: BenchKeys())
    try offerAnswer.receiveOffer(try SessionDescription(parsing: offer))
    return try offerAnswer.makeAnswer().sessionDescription.serialized().count
}

/// Prints `RESULT switchboard invite <row> <bytes> min_ns med_ns max_ns reps n` for the rows above.
func runInviteBenchmark(n: Int, repetitions: Int, corpus: String) {
    func load(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: corpus + "/" + name).map { [UInt8]($0) }
    }
    guard let invite = load("01_invite.sip"), let ack = load("05_ack.sip"), let bye = load("06_bye.sip") else {
        print("# invite: 01_invite.sip, 05_ack.sip or 06_bye.sip missing in \(corpus)")
        return
    }
    let calls = max(1, n / 10)
    let reps = max(1, repetitions)
    print("# switchboard UAS call (SIPUserAgent + SDP + SIPMessage, no transport): n=\(calls) reps=\(reps)")
    print("# columns: RESULT stack mode row bytes min_ns med_ns max_ns reps n")
    do {
        let setup = try InviteBenchSetup()
        let variants = try OfferVariants(invite: invite, count: 16)
        let calls16 = variants.invites.map { CallMessages(invite: $0, ack: ack, bye: bye) }
        var sink = 0
        func row(_ name: String, _ bytes: Int, _ body: (UInt64) throws -> Int) throws {
            for i in 0..<max(1, calls / 10) { sink &+= try body(UInt64(i) * 2) }
            var failure: (any Error)?
            let m = measure(repetitions: reps, messagesPerRepetition: calls) {
                do {
                    for i in 0..<calls { sink &+= try body(UInt64(i) * 2) }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            report("switchboard", "invite", name, bytes, m, reps, calls)
            // Allocations per call, counted on a pass of its own after the timed ones.
            let before = switchboard_allocation_count()
            for i in 0..<calls { sink &+= try body(UInt64(i) * 2) }
            let allocations = Double(switchboard_allocation_count() - before) / Double(calls)
            print("ALLOCS\tswitchboard\tinvite\t\(name)\t\(String(format: "%.1f", allocations))")
        }
        let requestBytes = invite.count + ack.count + bye.count
        try row("uas-call", requestBytes) { try inviteBenchmarkCall(calls16[Int(($0 / 2) % 16)], setup, $0) }
        try row("parse-requests", requestBytes) { try inviteBenchmarkParse(calls16[Int(($0 / 2) % 16)]) }
        try row("sdp-answer", variants.offers[0].count) {
            try inviteBenchmarkAnswer(variants.offers[Int(($0 / 2) % 16)], setup)
        }
        blackHole(sink)
    } catch {
        print("# invite: failed: \(error)")
    }
}
