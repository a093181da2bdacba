import STUN
import Testing

/// The Binding client transaction in virtual time (RFC 8489 §6.2, §6.3): the test is the clock.
@Suite("STUN Binding transaction")
struct BindingTransactionTests {
    /// Drives a transaction: fires the timer at each armed instant until `end`, recording sends and the outcome.
    struct Driver {
        var transaction: STUNBindingTransaction
        var deadline: STUNInstant?
        var sendTimes: [Int64] = []
        var outcome: STUNBindingOutcome?
        var finishedAt: Int64?

        mutating func apply(_ actions: [STUNTransactionAction], at now: STUNInstant) {
            for action in actions {
                switch action {
                case .send: sendTimes.append(now.nanoseconds / 1_000_000)
                case .armTimer(let at): deadline = at
                case .finished(let result):
                    outcome = result
                    finishedAt = now.nanoseconds / 1_000_000
                    deadline = nil
                }
            }
        }

        mutating func run(until end: STUNInstant) {
            while let deadline, deadline <= end {
                apply(transaction.timerFired(at: deadline), at: deadline)
            }
        }
    }

    static func makeTransaction(
        reliable: Bool = false, timers: STUNTransactionTimers = STUNTransactionTimers(),
        integrity: STUNIntegrity? = nil, seed: UInt64 = 1
    ) -> STUNBindingTransaction {
        var generator = SplitMix64(seed: seed)
        return STUNBindingTransaction(
            attributes: [.software("switchboard")], integrity: integrity, fingerprint: true, isReliable: reliable,
            timers: timers, generator: &generator)
    }

    @Test func udpRetransmitsOnTheRFCScheduleAndTimesOutAt39500ms() {
        var driver = Driver(transaction: Self.makeTransaction())
        driver.apply(driver.transaction.start(at: .zero), at: .zero)
        driver.run(until: .milliseconds(39_499))
        #expect(driver.sendTimes == [0, 500, 1500, 3500, 7500, 15500, 31500])
        #expect(driver.outcome == nil)
        driver.run(until: .milliseconds(39_500))
        #expect(driver.outcome == .timeout)
        #expect(driver.finishedAt == 39_500)
        #expect(driver.sendTimes.count == 7)
        #expect(driver.transaction.state == .finished(.timeout))
    }

    @Test func everySendIsTheSameRequest() throws {
        var transaction = Self.makeTransaction()
        let first = transaction.start(at: .zero)
        let again = transaction.timerFired(at: .milliseconds(500))
        guard case .send(let a) = first.first, case .send(let b) = again.first else {
            Issue.record("expected sends")
            return
        }
        #expect(a == b)
        let decoded = try STUNReceivedMessage(decoding: a)
        #expect(decoded.message.transactionID == transaction.transactionID)
        #expect(decoded.message.method == .binding)
        #expect(decoded.message.messageClass == .request)
        #expect(decoded.hasFingerprint)
        #expect(decoded.message.software == "switchboard")
    }

    @Test func configurableRTOScalesTheSchedule() {
        var driver = Driver(transaction: Self.makeTransaction(timers: STUNTransactionTimers(rto: .milliseconds(100))))
        driver.apply(driver.transaction.start(at: .milliseconds(1000)), at: .milliseconds(1000))
        driver.run(until: .milliseconds(100_000))
        #expect(driver.sendTimes == [1000, 1100, 1300, 1700, 2500, 4100, 7300])
        #expect(driver.finishedAt == 8900)  // 7300 + Rm × RTO
    }

    @Test func reliableTransportSendsOnceAndTimesOutAfterTi() {
        var driver = Driver(transaction: Self.makeTransaction(reliable: true))
        driver.apply(driver.transaction.start(at: .zero), at: .zero)
        #expect(driver.deadline == .milliseconds(39_500))
        driver.run(until: .milliseconds(60_000))
        #expect(driver.sendTimes == [0])
        #expect(driver.outcome == .timeout)
        #expect(driver.finishedAt == 39_500)
    }

    @Test func successResponseGivesTheMappedAddress() {
        var driver = Driver(transaction: Self.makeTransaction())
        driver.apply(driver.transaction.start(at: .zero), at: .zero)
        driver.run(until: .milliseconds(1000))
        let mapped = STUNTransportAddress(address: .v4(0xC633_6407), port: 40000)
        let response = STUNMessage(
            .successResponse, .binding, transactionID: driver.transaction.transactionID,
            attributes: [.xorMappedAddress(mapped, transactionID: driver.transaction.transactionID)])
        driver.apply(
            driver.transaction.receive(response.encoded(fingerprint: true), at: .milliseconds(1200)),
            at: .milliseconds(1200))
        #expect(driver.outcome == .success(mappedAddress: mapped, response: response.withFingerprint))
        #expect(driver.finishedAt == 1200)
        // Nothing more after the end: no retransmission, no second outcome.
        #expect(driver.transaction.timerFired(at: .milliseconds(1500)).isEmpty)
        #expect(driver.transaction.receive(response.encoded(), at: .milliseconds(1600)).isEmpty)
    }

    @Test func mappedAddressFromAnRFC3489ServerIsAccepted() {
        var transaction = Self.makeTransaction()
        _ = transaction.start(at: .zero)
        let mapped = STUNTransportAddress(address: .v4(0x0A00_0001), port: 5000)
        let response = STUNMessage(
            .successResponse, .binding, transactionID: transaction.transactionID, attributes: [.mappedAddress(mapped)])
        let actions = transaction.receive(response.encoded(), at: .milliseconds(10))
        #expect(actions == [.finished(.success(mappedAddress: mapped, response: response))])
    }

    @Test func errorResponseGivesItsCode() {
        var transaction = Self.makeTransaction()
        _ = transaction.start(at: .zero)
        let response = STUNMessage(
            .errorResponse, .binding, transactionID: transaction.transactionID,
            attributes: [.errorCode(.unauthenticated, reason: "Unauthenticated"), .realm("example.org")])
        let actions = transaction.receive(response.encoded(), at: .milliseconds(10))
        #expect(
            actions == [
                .finished(.errorResponse(code: .unauthenticated, reason: "Unauthenticated", response: response))
            ])
    }

    @Test func responsesToOtherTransactionsAndOtherDatagramsAreIgnored() {
        var transaction = Self.makeTransaction()
        _ = transaction.start(at: .zero)
        let otherID = STUNTransactionID(high: 1, low: 2)
        let mapped = STUNTransportAddress(address: .v4(1), port: 1)
        let wrongID = STUNMessage(
            .successResponse, .binding, transactionID: otherID,
            attributes: [.xorMappedAddress(mapped, transactionID: otherID)])
        let wrongMethod = STUNMessage(
            .successResponse, .allocate, transactionID: transaction.transactionID,
            attributes: [.xorMappedAddress(mapped, transactionID: transaction.transactionID)])
        let request = STUNMessage(.request, .binding, transactionID: transaction.transactionID)
        #expect(transaction.receive(wrongID.encoded(), at: .milliseconds(1)).isEmpty)
        #expect(transaction.receive(wrongMethod.encoded(), at: .milliseconds(1)).isEmpty)
        #expect(transaction.receive(request.encoded(), at: .milliseconds(1)).isEmpty)
        #expect(transaction.receive([0x80, 0x00, 0x00, 0x01], at: .milliseconds(1)).isEmpty)
        #expect(transaction.state == .waiting(sends: 1, deadline: .milliseconds(500)))
    }

    @Test func withIntegrityAForgedSuccessIsDiscarded() throws {
        let key = STUNKey.shortTerm(password: "secret")
        var transaction = Self.makeTransaction(integrity: STUNIntegrity(key: key))
        let sent = transaction.start(at: .zero)
        let bytes = try #require(sent.first.flatMap { if case .send(let b) = $0 { b } else { nil } })
        #expect(try STUNReceivedMessage(decoding: bytes).isAuthentic(with: key))
        let mapped = STUNTransportAddress(address: .v4(7), port: 7)
        let response = STUNMessage(
            .successResponse, .binding, transactionID: transaction.transactionID,
            attributes: [.xorMappedAddress(mapped, transactionID: transaction.transactionID)])
        #expect(transaction.receive(response.encoded(), at: .milliseconds(1)).isEmpty)
        let forged = STUNIntegrity(key: .shortTerm(password: "guess"))
        #expect(transaction.receive(response.encoded(integrity: forged), at: .milliseconds(2)).isEmpty)
        let signed = response.encoded(integrity: STUNIntegrity(key: key))
        let actions = transaction.receive(signed, at: .milliseconds(3))
        guard case .finished(.success(let address, _)) = actions.first else {
            Issue.record("no success")
            return
        }
        #expect(address == mapped)
    }

    @Test func unknownComprehensionRequiredAttributeFailsTheTransaction() {
        var transaction = Self.makeTransaction()
        _ = transaction.start(at: .zero)
        let mapped = STUNTransportAddress(address: .v4(1), port: 1)
        let response = STUNMessage(
            .successResponse, .binding, transactionID: transaction.transactionID,
            attributes: [
                .xorMappedAddress(mapped, transactionID: transaction.transactionID),
                STUNAttribute(type: STUNAttributeType(rawValue: 0x7777), value: [1]),
            ])
        let actions = transaction.receive(response.encoded(), at: .milliseconds(1))
        #expect(actions == [.finished(.unusableResponse(response: response))])
    }

    @Test func transactionIDsComeFromTheInjectedGenerator() {
        let a = Self.makeTransaction(seed: 7)
        let b = Self.makeTransaction(seed: 7)
        let c = Self.makeTransaction(seed: 8)
        #expect(a.transactionID == b.transactionID)
        #expect(a.requestBytes == b.requestBytes)
        #expect(a.transactionID != c.transactionID)
    }

    @Test func earlyTimerAndSecondStartDoNothing() {
        var transaction = Self.makeTransaction()
        #expect(transaction.timerFired(at: .milliseconds(500)).isEmpty)
        #expect(transaction.start(at: .zero).count == 2)
        #expect(transaction.start(at: .zero).isEmpty)
        #expect(transaction.timerFired(at: .milliseconds(499)).isEmpty)
        #expect(transaction.timerFired(at: .milliseconds(500)).count == 2)
    }
}

extension STUNMessage {
    /// The message as decoded after `encoded(fingerprint: true)`: with its FINGERPRINT attribute.
    var withFingerprint: STUNMessage {
        let bytes = encoded(fingerprint: true)
        var copy = self
        copy.attributes.append(STUNAttribute(type: .fingerprint, value: Array(bytes.suffix(4))))
        return copy
    }
}

/// A seeded generator (SplitMix64), so transaction IDs are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
