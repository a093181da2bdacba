import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3262: reliable provisional responses and PRACK, both ways.
@Suite struct ReliableProvisionalTests {
    @Test func reliableEarlyMediaIsPRACKedAndTheOKCarriesNoSecondAnswer() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.ring(status: 183, earlyMedia: true) }
        net.run()
        let progress = try #require(net["bob"].sent(status: 183).first)
        #expect(progress.headerFields[.require] == "100rel")
        let rseq = try #require(try progress.rseq)
        let prack = try #require(net["alice"].sent(.prack).first)
        #expect(try prack.rack == RAck(responseNumber: rseq, cseqNumber: 1, method: .invite))
        #expect(try prack.to?.tag == "bobtag1")
        #expect(prack.body.isEmpty)
        #expect(net["bob"].sent(status: 200).count == 1)
        #expect(net["alice"].names() == ["early media", "ringing 183"])
        #expect(net["bob"].names() == ["offer", "early media"])
        // PRACKed: no retransmission of the 183.
        net.advance(by: .seconds(5))
        #expect(net["bob"].sent(status: 183).count == 1)
        net.command("bob") { $0.answer() }
        net.run()
        let ok = try #require(net["bob"].sent(status: 200).last)
        #expect(ok.headerFields[.cseq] == "1 INVITE")
        #expect(ok.body.isEmpty)
        #expect(net["alice"].names().last == "connected")
        #expect(net["alice"].call?.negotiatedSession != nil)
    }

    @Test func unacknowledgedReliableResponseIsRetransmittedThenTheCallIsRejected() throws {
        let net = Harness("alice", "bob")
        net.drop = { delivery in
            if case .request(let request, _, _, _) = delivery { return request.method == .prack }
            return false
        }
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.ring(status: 183, earlyMedia: true) }
        net.run()
        var counts: [Int] = []
        for milliseconds in [400, 600, 1600, 3600, 7600] {
            net.advance(by: .milliseconds(Int64(milliseconds)) - net.now)
            counts.append(net["bob"].sent(status: 183).count)
        }
        // T1, then doubling: 0.5, 1.5, 3.5, 7.5 s.
        #expect(counts == [1, 2, 3, 4, 5])
        // Alice PRACKs once; the repeats with the same RSeq are dropped.
        #expect(net["alice"].sent(.prack).count == 1)
        net.advance(by: .seconds(40))
        #expect(net["bob"].sent(status: 504).count == 1)
        #expect(net["bob"].endReason?.kind == .timeout)
        #expect(net["alice"].endReason?.statusCode == 504)
    }

    @Test func answerWaitsForThePRACKOfAnOfferingProvisional() throws {
        let net = Harness("alice", "bob")
        var held: [Harness.Delivery] = []
        net.drop = { delivery in
            if case .request(let request, _, _, _) = delivery, request.method == .prack {
                held.append(delivery)
                return true
            }
            return false
        }
        net.call(from: "alice", to: "bob", offersInInvite: false)
        net.run()
        net.command("bob") { $0.ring(status: 183, earlyMedia: true) }
        net.command("bob") { $0.answer() }
        net.run()
        let progress = try #require(net["bob"].sent(status: 183).first)
        #expect(progress.headerFields[.contentType] == "application/sdp")
        let prack = try #require(net["alice"].sent(.prack).first)
        #expect(prack.headerFields[.contentType] == "application/sdp")
        #expect(net["bob"].sent(status: 200).isEmpty)
        // The PRACK arrives: its 200 and then the INVITE's 200 (with no SDP: the exchange is done).
        net.drop = { _ in false }
        net.inFlight.append(contentsOf: held)
        net.run()
        let oks = net["bob"].sent(status: 200)
        #expect(oks.map { $0.headerFields[.cseq] ?? "" } == ["2 PRACK", "1 INVITE"])
        #expect(oks.last?.body.isEmpty == true)
        #expect(net["alice"].names() == ["early media", "ringing 183", "connected"])
        #expect(net["bob"].names() == ["early media", "connected"])
        #expect(net["bob"].call?.negotiatedSession?.remoteRTPAddress?.port == 40000)
    }

    @Test func requiredReliabilitySendsEveryProvisionalReliablyOneAtATime() throws {
        let net = Harness("alice", "bob")
        net["alice"].configuration.reliableProvisionalResponses = .required
        net["bob"].configuration.reliableProvisionalResponses = .required
        var held: [Harness.Delivery] = []
        net.drop = { delivery in
            if case .request(let request, _, _, _) = delivery, request.method == .prack {
                held.append(delivery)
                return true
            }
            return false
        }
        net.call(from: "alice", to: "bob")
        #expect(try net["alice"].sent(.invite).first?.require == ["100rel"])
        net.run()
        net.command("bob") { $0.ring(status: 180) }
        net.command("bob") { $0.ring(status: 182) }
        net.run()
        #expect(net["bob"].sent(status: 180).count == 1)
        #expect(net["bob"].sent(status: 182).isEmpty)
        net.drop = { _ in false }
        net.inFlight.append(contentsOf: held)
        net.run()
        let queued = try #require(net["bob"].sent(status: 182).first)
        let first = try #require(net["bob"].sent(status: 180).first)
        #expect(try queued.rseq == (try first.rseq).map { $0 + 1 })
        #expect(net["alice"].sent(.prack).count == 2)
        #expect(net["alice"].names() == ["ringing 180", "ringing 182"])
    }

    @Test func uacDropsRepeatedAndOutOfOrderReliableResponses() throws {
        var call = try ScriptedCall()
        let reliable = try call.reply(180, extra: ["Require: 100rel", "RSeq: 7"])
        let first = call.receive(reliable)
        #expect(first.requests.map(\.method) == [.prack])
        #expect(first.requests.first?.headerFields[.rack] == "7 10 INVITE")
        #expect(call.receive(reliable).isEmpty)
        let skipped = try call.reply(183, extra: ["Require: 100rel", "RSeq: 9"])
        #expect(call.receive(skipped).isEmpty)
        let next = try call.reply(183, extra: ["Require: 100rel", "RSeq: 8"])
        #expect(call.receive(next).requests.first?.headerFields[.rack] == "8 10 INVITE")
    }

    @Test func prackThatMatchesNothingGets481AndOneWithoutRAck400() throws {
        var configuration = InviteSessionConfiguration(contact: try address("<sip:bob@192.0.2.20>"))
        configuration.reliableProvisionalResponses = .supported
        let invite = IncomingCallTests.invite.replacingOccurrences(
            of: "Supported: timer, replaces", with: "Supported: 100rel")
        var session = InviteSession(
            incoming: try request(invite), transaction: ServerTransactionToken(rawValue: 1), localTag: "btag",
            configuration: configuration, offerAnswer: .testing(address: "192.0.2.20", port: 50000),
            random: SeededRandom(5))
        _ = session.start()
        let ringing = session.ring(status: 183, earlyMedia: true)
        let rseq = try #require(try ringing.responses.first?.rseq)
        let prack = """
            PRACK sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKp1
            From: <sip:alice@atlanta.example>;tag=atag
            To: <sip:bob@biloxi.example>;tag=btag
            Call-ID: incoming-1
            CSeq: 6 PRACK
            RAck: \(rseq + 5) 5 INVITE


            """
        let wrong = session.receiveRequest(try request(prack), transaction: ServerTransactionToken(rawValue: 2))
        #expect(wrong.responses.map(\.statusCode) == [481])
        let missing = prack.replacingOccurrences(of: "RAck: \(rseq + 5) 5 INVITE\n", with: "")
            .replacingOccurrences(of: "CSeq: 6", with: "CSeq: 7")
        let bad = session.receiveRequest(try request(missing), transaction: ServerTransactionToken(rawValue: 3))
        #expect(bad.responses.map(\.statusCode) == [400])
        let right = prack.replacingOccurrences(of: "RAck: \(rseq + 5)", with: "RAck: \(rseq)")
            .replacingOccurrences(of: "CSeq: 6", with: "CSeq: 8")
        let good = session.receiveRequest(try request(right), transaction: ServerTransactionToken(rawValue: 4))
        #expect(good.responses.map(\.statusCode) == [200])
        #expect(
            good.contains {
                if case .cancelTimer(let timer) = $0 { return timer.kind == .retransmitProvisional }
                return false
            })
    }
}
