import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SwitchboardTesting
import Testing

/// The transaction core over the real transport code on a virtual network: exact timer schedules,
/// retransmissions under loss, connection reuse and failures, all in virtual time.
@Suite struct SIPCoreTransactionTests {
    @Test func optionsOverUDPIsAnsweredAfterOneRoundTrip() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", seed: 1)
        let bob = try world.core("10.0.0.2", seed: 2)
        bob.answerEverything(with: 200)
        let outcome = world.send(.options, from: alice, to: "10.0.0.2")
        world.loop.advance(by: .milliseconds(1))
        #expect(outcome.statuses.isEmpty)
        world.loop.advance(by: .milliseconds(1))
        #expect(outcome.statuses == [200])
        #expect(alice.statistics.requestRetransmissions == 0)
    }

    @Test func aServerTransactionsEndIsReportedOnceAndAClientsIsNot() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", seed: 1)
        let bob = try world.core("10.0.0.2", seed: 2)
        final class Heard {
            var answered: [TransactionID] = []
            var ended: [TransactionID] = []
            var endedAtAlice: [TransactionID] = []
        }
        let heard = Heard()
        world.loop.withLoop {
            bob.onRequest = { request in
                heard.answered.append(request.transaction)
                bob.respond(bob.makeResponse(200, to: request.request), to: request.transaction)
            }
            bob.onServerTerminated = { heard.ended.append($0) }
            alice.onServerTerminated = { heard.endedAtAlice.append($0) }
        }
        let outcome = world.send(.options, from: alice, to: "10.0.0.2")
        world.loop.advance(by: .seconds(1))
        #expect(outcome.statuses == [200])
        #expect(heard.answered.count == 1 && heard.ended.isEmpty)
        // Timer J: the answered request's transaction absorbs retransmissions for 64*T1 (32 s over UDP).
        world.loop.advance(by: .seconds(32))
        #expect(heard.ended == heard.answered)
        #expect(heard.endedAtAlice.isEmpty)
    }

    @Test func lostRequestsAreRetransmittedOnTimerEAndTimeOutOnTimerF() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", seed: 1)
        _ = try world.core("10.0.0.2", seed: 2)
        world.network.setConditions(.down, from: "10.0.0.1", to: "10.0.0.2")
        let outcome = world.send(.options, from: alice, to: "10.0.0.2")
        world.loop.advance(by: .milliseconds(31_999))
        #expect(!outcome.timedOut)
        world.loop.advance(by: .milliseconds(1))
        #expect(outcome.timedOut)
        // Timer E doubles from T1 to T2: sent at 0, 0.5, 1.5, 3.5, 7.5, then every 4 s until 31.5 s.
        let sent = world.network.records.filter { $0.isSIP }.map { $0.time }
        let expected: [Duration] = [0, 500, 1_500, 3_500, 7_500, 11_500, 15_500, 19_500, 23_500, 27_500, 31_500]
            .map { .milliseconds($0) }
        #expect(sent == expected)
        #expect(alice.statistics.requestRetransmissions == 10)
    }

    @Test func aRequestOverTCPOpensOneConnectionAndItsResponseComesBackOnIt() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", listening: [.udp, .tcp], seed: 1)
        let bob = try world.core("10.0.0.2", listening: [.udp, .tcp], seed: 2)
        bob.answerEverything(with: 200)
        let first = world.send(.options, from: alice, to: "10.0.0.2", over: .tcp)
        let second = world.send(.message, from: alice, to: "10.0.0.2", over: .tcp)
        world.loop.advance(by: .milliseconds(10))
        #expect(first.statuses == [200])
        #expect(second.statuses == [200])
        world.loop.withLoop {
            #expect(alice.transport.statistics.connectionsOpened == 1)
            #expect(bob.transport.statistics.connectionsAccepted == 1)
        }
    }

    /// RFC 3261 §18.1.1 moves an INVITE too large for UDP to TCP; its client transaction follows the move:
    /// no Timer A retransmissions over the stream, and the ACK of the 407 goes over TCP with the INVITE's
    /// Via (§17.1.1.3: same address, port and transport).
    @Test func anInviteSwitchedToTCPForItsSizeIsAcknowledgedOverTCP() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", listening: [.udp, .tcp], seed: 1)
        let bob = try world.core("10.0.0.2", listening: [.udp, .tcp], seed: 2)
        bob.answerEverything(with: 407)
        let outcome = ClientOutcome()
        world.loop.withLoop {
            guard let address = SocketAddress(ip: "10.0.0.2", port: 5060), let target = try? URI("sip:bob@10.0.0.2")
            else { return }
            var request = SIPRequest(method: .invite, uri: target)
            request.headerFields.append(.from, "<sip:alice@example.com>;tag=\(alice.makeTag())")
            request.headerFields.append(.to, "<sip:bob@10.0.0.2>")
            request.headerFields.append(.callID, alice.makeCallID())
            request.headerFields.append(.cseq, "1 INVITE")
            request.headerFields.append(.maxForwards, "70")
            request.headerFields.append(.contentType, "application/sdp")
            request.body = Array(repeating: UInt8(ascii: "a"), count: 1_400)
            request.headerFields.append(.contentLength, "1400")
            let destination = Destination(transport: .udp, address: address)
            _ = try? alice.sendRequest(request, to: destination) { event in outcome.record(event) }
        }
        world.loop.advance(by: .seconds(5))
        #expect(outcome.statuses == [407])
        let sent = world.network.records.filter { $0.isSIP && $0.source.host == "10.0.0.1" }
        let texts = sent.map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.kind == .stream })
        #expect(texts.first?.hasPrefix("INVITE ") == true)
        #expect(texts.last?.hasPrefix("ACK ") == true)
        #expect(texts.allSatisfy { $0.contains("Via: SIP/2.0/TCP ") })
        #expect(alice.statistics.requestRetransmissions == 0)
    }

    @Test func aRefusedConnectionIsATransportErrorAtOnce() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", listening: [.udp, .tcp], seed: 1)
        _ = try world.core("10.0.0.2", listening: [.udp], seed: 2)
        let outcome = world.send(.options, from: alice, to: "10.0.0.2", over: .tcp)
        world.loop.advance(by: .milliseconds(2))
        #expect(outcome.transportErrors == [.connectionRefused])
    }

    @Test func aResetConnectionIsReportedAsAFlowEvent() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", listening: [.udp, .tcp], seed: 1)
        let bob = try world.core("10.0.0.2", listening: [.udp, .tcp], seed: 2)
        bob.answerEverything(with: 200)
        var closed = 0
        world.loop.withLoop {
            _ = alice.addFlowObserver { event in
                if case .closed = event { closed += 1 }
            }
        }
        _ = world.send(.options, from: alice, to: "10.0.0.2", over: .tcp)
        world.loop.advance(by: .milliseconds(10))
        #expect(world.network.resetConnections(of: "10.0.0.2") == 2)
        world.loop.advance(by: .milliseconds(1))
        #expect(closed == 1)
        world.loop.withLoop { #expect(alice.transport.connectionCount == 0) }
    }

    @Test func theSameScenarioTwiceGivesTheSameTrace() throws {
        func scenario() throws -> String {
            let world = CoreWorld()
            world.network.setConditions(
                LinkConditions(latency: .milliseconds(20), jitter: .milliseconds(30), loss: 0.3))
            let alice = try world.core("10.0.0.1", seed: 7)
            let bob = try world.core("10.0.0.2", seed: 8)
            bob.answerEverything(with: 200)
            for _ in 0..<5 { _ = world.send(.options, from: alice, to: "10.0.0.2") }
            world.loop.advance(by: .seconds(40))
            return world.network.sipTrace
        }
        let first = try scenario()
        #expect(first.contains("OPTIONS sip:"))
        #expect(first == (try scenario()))
    }
}
