import Testing

@testable import Media

@Suite("RTCP interval (RFC 3550 A.7) and session")
struct RTCPSessionTests {
    @Test func deterministicIntervalFollowsA7() {
        // 80 kbit/s: 500 octets/s of RTCP. Two members both sending: 100 * 2 / 500 = 0.4 s, so the 5 s minimum.
        #expect(
            RTCPInterval.deterministic(
                members: 2, senders: 2, rtcpBandwidth: 500, weSent: true, averageSize: 100, isInitial: false,
                minimum: 5) == 5)
        #expect(
            RTCPInterval.deterministic(
                members: 2, senders: 2, rtcpBandwidth: 500, weSent: true, averageSize: 100, isInitial: true,
                minimum: 5) == 2.5)
        // A large audience with one sender: receivers share 3/4 of the bandwidth, 100 * 999 / 375.
        let receiver = RTCPInterval.deterministic(
            members: 1000, senders: 1, rtcpBandwidth: 500, weSent: false, averageSize: 100, isInitial: false, minimum: 5
        )
        #expect(abs(receiver - 266.4) < 1e-9)
        // ...and the sender 1/4 to itself: 100 * 1 / 125 = 0.8 s, so 5 s.
        #expect(
            RTCPInterval.deterministic(
                members: 1000, senders: 1, rtcpBandwidth: 500, weSent: true, averageSize: 100, isInitial: false,
                minimum: 5) == 5)
    }

    @Test func randomizationStaysInItsBounds() {
        var generator = SeededGenerator(seed: 9)
        var sum = 0.0
        for _ in 0..<10_000 {
            let t = RTCPInterval.randomized(5, using: &generator)
            #expect(t >= 2.5 / 1.2183 && t <= 7.5 / 1.2182)
            sum += t
        }
        #expect(abs(sum / 10_000 - 5 / 1.218_281_828) < 0.05)
    }

    @Test func theRandomFactorIsTheStandardLibrarysDrawForTheSameGenerator() {
        var ours = SeededGenerator(seed: 3)
        var standard = SeededGenerator(seed: 3)
        var mismatches = 0
        for _ in 0..<100_000 where RTCPInterval.factor(using: &ours) != Double.random(in: 0.5...1.5, using: &standard) {
            mismatches += 1
        }
        #expect(mismatches == 0)
    }

    func makeSession(_ clock: ManualClock, minimum: RTCPInterval.Minimum = .standard, seed: UInt64 = 1) -> RTCPSession {
        RTCPSession(
            configuration: RTCPConfiguration(cname: "alice@192.0.2.1", minimumInterval: minimum), clock: clock,
            random: SeededGenerator(seed: seed))
    }

    @Test func reportsOnTheIntervalWithReconsideration() throws {
        let clock = ManualClock()
        var session = makeSession(clock)
        var sender = RTPSender(ssrc: 0x1111, firstSequenceNumber: 0, firstTimestamp: 0, payloadType: 0, clockRate: 8000)
        var receiver = RTPReceiver(clockRate: 8000)
        // The first report comes after half the minimum, randomised: [0.5, 1.5] * 2.5 s / 1.218.
        let first = session.nextReportTime.nanoseconds
        #expect(first >= 1_020_000_000 && first <= 3_080_000_000)
        var times: [Int64] = []
        var tick = 0
        while clock.now().nanoseconds < 600_000_000_000 {
            clock.advance(.milliseconds(20))
            tick += 1
            _ = sender.packet(payload: [UInt8](repeating: 0, count: 160), samples: 160, at: clock.now())
            let remote = RTPPacket(
                payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: tick), timestamp: UInt32(tick * 160),
                ssrc: 0x2222, payload: [0][...])
            _ = receiver.receive(remote, size: 172, at: clock.now())
            if clock.now() >= session.nextReportTime,
                let bytes = session.timerExpired(sender: sender, receiver: &receiver)
            {
                times.append(clock.now().nanoseconds)
                let compound = try RTCPCompoundPacket(parsing: bytes)
                guard case .senderReport(let report) = compound.packets.first else {
                    Issue.record("a sending participant reports with an SR")
                    return
                }
                #expect(report.ssrc == 0x1111)
                #expect(report.senderInfo.packetCount == sender.packetCount)
                #expect(report.reportBlocks.count == (receiver.source == nil ? 0 : 1))
                #expect(compound.packets.count == 2)
            }
        }
        let intervals = zip(times.dropFirst(), times).map { Double($0 - $1) / 1e9 }
        #expect(intervals.allSatisfy { $0 >= 2.05 && $0 <= 6.2 })
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        #expect(mean > 4 && mean < 6, "mean interval \(mean) s")
        #expect(session.reportsSent == times.count)
    }

    @Test func theReducedMinimumShortensTheInterval() {
        let clock = ManualClock()
        // 360 / 80 kbit/s = 4.5 s, halved for the first report, randomised.
        let session = makeSession(clock, minimum: .reduced)
        #expect(session.nextReportTime.nanoseconds <= Int64(2.25 * 1.5 / 1.2182 * 1e9))
        let fixed = makeSession(clock, minimum: .fixed(.milliseconds(500)))
        #expect(fixed.nextReportTime.nanoseconds <= Int64(0.25 * 1.5 / 1.2182 * 1e9))
    }

    @Test func aSilentParticipantSendsReceiverReports() throws {
        let clock = ManualClock()
        var session = makeSession(clock)
        let sender = RTPSender(ssrc: 1, firstSequenceNumber: 0, firstTimestamp: 0, payloadType: 0, clockRate: 8000)
        var receiver = RTPReceiver(clockRate: 8000)
        // Timer reconsideration may move the report later a few times before it goes.
        var sent: [UInt8]?
        for _ in 0..<10 where sent == nil {
            clock.set(session.nextReportTime)
            sent = session.timerExpired(sender: sender, receiver: &receiver)
        }
        let bytes = try #require(sent)
        guard case .receiverReport(let report) = try RTCPCompoundPacket(parsing: bytes).packets.first else {
            Issue.record("expected an RR")
            return
        }
        #expect(report.ssrc == 1 && report.reportBlocks.isEmpty)
    }

    @Test func roundTripTimeFromLSRAndDLSR() throws {
        let clock = ManualClock()
        var session = makeSession(clock)
        let sender = RTPSender(ssrc: 0xABCD, firstSequenceNumber: 0, firstTimestamp: 0, payloadType: 0, clockRate: 8000)
        var receiver = RTPReceiver(clockRate: 8000)
        // Our SR left 1.5 s ago; the other side held it 1.25 s (0x14000 units): RTT 250 ms.
        let now = clock.wallclock().middle32
        let block = RTCPReportBlock(
            ssrc: 0xABCD, fractionLost: 3, cumulativeLost: 2, extendedHighestSequenceNumber: 100,
            interarrivalJitter: 40, lastSenderReport: now &- 0x18000, delaySinceLastSenderReport: 0x14000)
        let compound = RTCPCompoundPacket(packets: [
            .receiverReport(RTCPReceiverReport(ssrc: 0x9999, reportBlocks: [block])),
            .sourceDescription(.cname("bob@192.0.2.2", ssrc: 0x9999)),
        ])
        let reception = session.receive(compound, size: 60, sender: sender, receiver: &receiver)
        #expect(reception.roundTripTime == .milliseconds(250))
        #expect(reception.reportAboutUs == block)
        #expect(session.roundTripTime == .milliseconds(250))
        #expect(session.remoteCNAME == "bob@192.0.2.2")
        // A block without LSR gives no RTT; a block about another source is not about us.
        var other = block
        other.lastSenderReport = 0
        let none = session.receive(
            RTCPCompoundPacket(packets: [.receiverReport(.init(ssrc: 0x9999, reportBlocks: [other]))]), size: 40,
            sender: sender, receiver: &receiver)
        #expect(none.roundTripTime == nil && none.reportAboutUs == other)
    }

    @Test func roundTripTimeBetweenTwoSessions() throws {
        let clock = ManualClock()
        var alice = makeSession(clock, seed: 1)
        var bob = makeSession(clock, seed: 2)
        var aliceSender = RTPSender(
            ssrc: 0xA, firstSequenceNumber: 0, firstTimestamp: 0, payloadType: 0, clockRate: 8000)
        var bobSender = RTPSender(ssrc: 0xB, firstSequenceNumber: 0, firstTimestamp: 0, payloadType: 0, clockRate: 8000)
        var aliceReceiver = RTPReceiver(clockRate: 8000)
        var bobReceiver = RTPReceiver(clockRate: 8000)
        // In flight: (delivery time, to Bob?, bytes). The network delays RTCP by 40 ms one way.
        var inFlight: [(Int64, Bool, [UInt8])] = []
        var rtt: Duration?
        for _ in 0..<1000 {
            clock.advance(.milliseconds(20))
            let now = clock.now()
            let a = aliceSender.packet(payload: [0], samples: 160, at: now)
            let b = bobSender.packet(payload: [0], samples: 160, at: now)
            _ = bobReceiver.receive(a, size: 13, at: now)
            _ = aliceReceiver.receive(b, size: 13, at: now)
            if now >= alice.nextReportTime,
                let bytes = alice.timerExpired(sender: aliceSender, receiver: &aliceReceiver)
            {
                inFlight.append((now.nanoseconds + 40_000_000, true, bytes))
            }
            if now >= bob.nextReportTime, let bytes = bob.timerExpired(sender: bobSender, receiver: &bobReceiver) {
                inFlight.append((now.nanoseconds + 40_000_000, false, bytes))
            }
            for (time, toBob, bytes) in inFlight where time <= now.nanoseconds {
                let compound = try RTCPCompoundPacket(parsing: bytes)
                if toBob {
                    _ = bob.receive(compound, size: bytes.count, sender: bobSender, receiver: &bobReceiver)
                } else if let value = alice.receive(
                    compound, size: bytes.count, sender: aliceSender, receiver: &aliceReceiver
                )
                .roundTripTime {
                    rtt = value
                }
            }
            inFlight.removeAll { $0.0 <= now.nanoseconds }
        }
        let measured = try #require(rtt)
        // 80 ms of network, within the 1/65536 s units and the 20 ms tick the reports are sent on.
        #expect(measured >= .milliseconds(79) && measured <= .milliseconds(81), "\(measured)")
        #expect(bob.remoteCNAME == "alice@192.0.2.1")
    }

    @Test func goodbyeAndReverseReconsideration() throws {
        let clock = ManualClock()
        var session = makeSession(clock)
        let sender = RTPSender(ssrc: 5, firstSequenceNumber: 0, firstTimestamp: 0, payloadType: 0, clockRate: 8000)
        var receiver = RTPReceiver(clockRate: 8000)
        clock.set(session.nextReportTime)
        _ = session.timerExpired(sender: sender, receiver: &receiver)
        // The other side is heard, then leaves: the next report comes in proportionally (2 -> 1 members).
        _ = session.receive(
            RTCPCompoundPacket(packets: [.receiverReport(.init(ssrc: 6, reportBlocks: []))]), size: 40,
            sender: sender, receiver: &receiver)
        clock.set(session.nextReportTime)
        _ = session.timerExpired(sender: sender, receiver: &receiver)
        let before = session.nextReportTime.nanoseconds - clock.now().nanoseconds
        let reception = session.receive(
            RTCPCompoundPacket(packets: [
                .receiverReport(.init(ssrc: 6, reportBlocks: [])), .goodbye(RTCPGoodbye(sources: [6], reason: "done")),
            ]), size: 48, sender: sender, receiver: &receiver)
        #expect(reception.goodbye?.reasonText == "done")
        let after = session.nextReportTime.nanoseconds - clock.now().nanoseconds
        #expect(after * 2 == before || abs(after * 2 - before) <= 1)
        // Our own BYE: RR, SDES CNAME, BYE.
        let bytes = session.makeGoodbye(sender: sender, receiver: &receiver, reason: "hang-up")
        let packets = try RTCPCompoundPacket(parsing: bytes).packets
        #expect(packets.map(\.packetType) == [201, 202, 203])
        #expect(packets.last == .goodbye(RTCPGoodbye(sources: [5], reason: "hang-up")))
    }
}
