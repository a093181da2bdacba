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
// Rows (ns per call or per operation; min/median/max over the repetitions):
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
    let messages = CallMessages(invite: invite, ack: ack, bye: bye)
    let calls = max(1, n / 10)
    let reps = max(1, repetitions)
    print("# switchboard UAS call (SIPUserAgent + SDP + SIPMessage, no transport): n=\(calls) reps=\(reps)")
    print("# columns: RESULT stack mode row bytes min_ns med_ns max_ns reps n")
    do {
        let setup = try InviteBenchSetup()
        let offer = [UInt8]((try SIPRequest(parsing: invite)).bodyBytes)
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
        }
        let requestBytes = invite.count + ack.count + bye.count
        try row("uas-call", requestBytes) { try inviteBenchmarkCall(messages, setup, $0) }
        try row("parse-requests", requestBytes) { _ in try inviteBenchmarkParse(messages) }
        try row("sdp-answer", offer.count) { _ in try inviteBenchmarkAnswer(offer, setup) }
        blackHole(sink)
    } catch {
        print("# invite: failed: \(error)")
    }
}
