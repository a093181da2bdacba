import STUN
import Testing

/// The TURN client against a scripted server in virtual time (RFC 8656 §7-§12).
@Suite("TURN client")
struct TURNClientTests {
    static let peer = STUNTransportAddress(address: .v4(0xC633_6407), port: 49_152)
    static let otherPeer = STUNTransportAddress(address: .v4(0xC633_6408), port: 49_153)
    static let allocated = TURNClientEvent.allocated(
        relayed: ScriptedTURNServer.relayed, mapped: ScriptedTURNServer.mapped, lifetime: .seconds(600))

    /// A harness whose client is allocated at instant zero.
    static func allocatedHarness(_ configuration: TURNClientConfiguration? = nil) -> TURNHarness {
        var harness = TURNHarness(configuration: configuration)
        harness.start()
        return harness
    }

    @Test func answersThe401ChallengeWithLongTermCredentials() throws {
        var harness = TURNHarness()
        harness.start()
        let requests = harness.server.requests
        #expect(requests.count == 2)
        #expect(requests.map(\.method) == [.allocate, .allocate])
        #expect(requests[0].username == nil && requests[0].requestedTransport == .udp)
        #expect(requests[1].username == ScriptedTURNServer.username)
        #expect(requests[1].realm == ScriptedTURNServer.realm && requests[1].nonce == "nonce-1")
        #expect(requests[1].requestedTransport == .udp)
        #expect(requests[1].attributes.contains { $0.type == .messageIntegrity })
        #expect(requests[0].transactionID != requests[1].transactionID)
        #expect(harness.events == [Self.allocated])
        #expect(harness.client.state == .allocated)
        #expect(harness.client.relayedAddress == ScriptedTURNServer.relayed)
        #expect(harness.client.expiresAt == .seconds(600))
        // The timer armed for the first Allocate's retransmission fires with nothing to do and re-arms.
        harness.advance(to: .seconds(1))
        #expect(harness.timer == .seconds(540))
        #expect(harness.sends.count == 2)
    }

    @Test func anRFC8489ServerGetsTheSHA256KeyAndItsAlgorithmsEchoed() throws {
        var harness = TURNHarness()
        harness.server.offersPasswordAlgorithms = true
        harness.start()
        #expect(harness.events == [Self.allocated])
        let signed = try #require(harness.server.requests.last)
        #expect(signed.passwordAlgorithm == .sha256)
        #expect(signed.passwordAlgorithms == [.sha256, .md5])
        let bytes = try #require(harness.sends.last?.bytes)
        let received = try STUNReceivedMessage(decoding: bytes)
        #expect(received.hasMessageIntegrity && received.hasMessageIntegritySHA256)
        let key = try #require(harness.server.sha256Key)
        #expect(received.isAuthentic(with: key))
    }

    @Test func staleNonceIsRetriedWithTheNewNonce() {
        var harness = TURNHarness()
        harness.server.staleNonces = 1
        harness.start()
        #expect(harness.server.requests.map(\.nonce) == [nil, "nonce-1", "nonce-2"])
        #expect(harness.events == [Self.allocated])
    }

    @Test func staleNonceRetriesAreBounded() throws {
        var harness = TURNHarness()
        harness.server.staleNonces = 100
        harness.start()
        // The unauthenticated request, the first signed one, then three retries.
        #expect(harness.server.requests.count == 5)
        guard case .failed(let failure)? = harness.events.last else {
            Issue.record("no failure: \(harness.events)")
            return
        }
        #expect(failure.code == .staleNonceRetriesExhausted && failure.errorCode == .staleNonce)
        #expect(harness.timer == nil || harness.client.timerFired(at: .seconds(100)).isEmpty)
    }

    @Test func aWrongPasswordFailsAfterOneSignedAttempt() {
        let configuration = TURNClientConfiguration(
            credentials: TURNCredentials(username: ScriptedTURNServer.username, password: "wrong"))
        var harness = TURNHarness(configuration: configuration)
        harness.start()
        #expect(harness.server.requests.count == 2)
        guard case .failed(let failure)? = harness.events.last else {
            Issue.record("no failure: \(harness.events)")
            return
        }
        #expect(failure.code == .authenticationFailed && failure.errorCode == .unauthenticated)
    }

    @Test(arguments: [STUNErrorCode.allocationQuotaReached, .insufficientCapacity, .forbidden, .wrongCredentials])
    func allocationRefusalsAreTypedFailures(_ code: STUNErrorCode) {
        var harness = TURNHarness()
        harness.server.allocateError = code
        harness.start()
        let failure = TURNFailure.errorResponseFailure(harness.events)
        #expect(failure?.code == .errorResponse)
        #expect(failure?.errorCode == code)
        #expect(failure?.method == .allocate)
        #expect(harness.client.state == failure.map { .failed($0) })
        #expect(harness.client.send([1], to: Self.peer, at: .seconds(1)).isEmpty)
    }

    @Test func tryAlternateNamesTheOtherServer() {
        var harness = TURNHarness()
        harness.server.allocateError = .tryAlternate
        harness.start()
        let failure = TURNFailure.errorResponseFailure(harness.events)
        #expect(failure?.code == .tryAlternate && failure?.errorCode == .tryAlternate)
        #expect(failure?.alternateServer == STUNTransportAddress(address: .v4(0xC000_0263), port: 3478))
    }

    @Test func allocationMismatchOnRefreshLosesTheAllocation() {
        var harness = Self.allocatedHarness()
        harness.server.refreshError = .allocationMismatch
        harness.advance(to: .seconds(541))
        let failure = TURNFailure.errorResponseFailure(harness.events)
        #expect(failure?.method == .refresh && failure?.errorCode == .allocationMismatch)
        #expect(harness.requestTimes(.refresh) == [540_000])
    }

    @Test func theAllocationIsRefreshedAMinuteBeforeItExpires() {
        var harness = Self.allocatedHarness()
        harness.advance(to: .seconds(1200))
        #expect(harness.requestTimes(.refresh) == [540_000, 1_080_000])
        #expect(
            harness.events == [
                Self.allocated, .refreshed(lifetime: .seconds(600)), .refreshed(lifetime: .seconds(600)),
            ])
        #expect(harness.client.expiresAt == .seconds(1680))
    }

    @Test func aShortLifetimeIsRefreshedAtHalfOfIt() {
        var harness = TURNHarness(configuration: TURNHarness.configuration(lifetime: 100))
        harness.server.lifetime = 100
        harness.start()
        harness.advance(to: .seconds(160))
        #expect(harness.requestTimes(.refresh) == [50_000, 100_000, 150_000])
        #expect(harness.server.requests.filter { $0.method == .refresh }.allSatisfy { $0.lifetimeSeconds == 100 })
    }

    @Test func permissionsAndChannelsAreRefreshedBeforeTheyExpire() {
        var harness = Self.allocatedHarness()
        harness.advance(to: .seconds(10))
        harness.apply(harness.client.createPermission(for: Self.peer.address, at: harness.now))
        harness.advance(to: .seconds(20))
        harness.apply(harness.client.bindChannel(to: Self.otherPeer, at: harness.now))
        #expect(
            harness.events == [
                Self.allocated, .permissionReady(Self.peer.address),
                .channelReady(peer: Self.otherPeer, channel: .first), .permissionReady(Self.otherPeer.address),
            ])
        harness.advance(to: .seconds(600))
        // 300-s permissions at +240 s; the channel's own permission also at +240 s, and again 240 s after the
        // channel refresh (which refreshes it, §12) at 20 + 540 s.
        #expect(harness.requestTimes(.createPermission) == [10_000, 250_000, 260_000, 490_000, 500_000])
        #expect(harness.requestTimes(.channelBind) == [20_000, 560_000])
        #expect(harness.requestTimes(.refresh) == [540_000])
        let binds = harness.server.requests.filter { $0.method == .channelBind }
        #expect(binds.allSatisfy { $0.channelNumber == .first && $0.xorPeerAddress == Self.otherPeer })
        harness.advance(to: .seconds(801))
        #expect(harness.requestTimes(.createPermission).suffix(2) == [730_000, 800_000])
    }

    @Test func sendIndicationBeforeTheChannelIsBoundAndChannelDataAfter() throws {
        var harness = Self.allocatedHarness()
        harness.apply(harness.client.createPermission(for: Self.peer.address, at: harness.now))
        harness.apply(harness.client.send(Array("hello".utf8), to: Self.peer, at: harness.now))
        let indication = try #require(harness.server.messages.last)
        #expect(indication.messageClass == .indication && indication.method == .send)
        #expect(indication.xorPeerAddress == Self.peer && indication.data == Array("hello".utf8))
        #expect(harness.server.channelData.isEmpty)

        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        #expect(harness.client.channel(for: Self.peer) == .first)
        harness.apply(harness.client.send(Array("world".utf8), to: Self.peer, at: harness.now))
        #expect(harness.server.channelData == [TURNChannelData(channel: .first, payload: Array("world".utf8))])
        // Over UDP ChannelData is not padded: 4 + 5 bytes.
        #expect(harness.sends.last?.bytes.count == 9)
    }

    @Test func sendingToAPeerWithoutAPermissionAsksForOne() {
        var harness = Self.allocatedHarness()
        harness.apply(harness.client.send([1, 2, 3], to: Self.peer, at: harness.now))
        #expect(harness.server.messages.suffix(2).map(\.method) == [.createPermission, .send])
        #expect(harness.client.permittedPeers == [Self.peer.address])
    }

    @Test func channelDataOverAStreamIsPadded() {
        var harness = Self.allocatedHarness(TURNHarness.configuration(reliable: true))
        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        harness.apply(harness.client.send(Array("world".utf8), to: Self.peer, at: harness.now))
        #expect(harness.sends.last?.bytes.count == 12)
        #expect(harness.server.channelData == [TURNChannelData(channel: .first, payload: Array("world".utf8))])
    }

    @Test func dataIndicationsAndChannelDataComeInAsPeerData() throws {
        var harness = Self.allocatedHarness()
        // Nothing from a peer without a permission.
        harness.apply(harness.client.receive(ScriptedTURNServer.dataIndication(from: Self.peer, [9]), at: harness.now))
        #expect(harness.events == [Self.allocated])

        harness.apply(harness.client.createPermission(for: Self.peer.address, at: harness.now))
        harness.apply(
            harness.client.receive(ScriptedTURNServer.dataIndication(from: Self.peer, [1, 2]), at: harness.now))
        #expect(harness.events.last == .data(peer: Self.peer, payload: [1, 2]))

        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        let channelData = TURNChannelData(channel: .first, payload: [3, 4, 5]).encoded()
        harness.apply(harness.client.receive(channelData, at: harness.now))
        #expect(harness.events.last == .data(peer: Self.peer, payload: [3, 4, 5]))

        // An unbound channel and malformed ChannelData are ignored.
        let count = harness.events.count
        let unbound = try #require(TURNChannelNumber(rawValue: 0x4001))
        harness.apply(
            harness.client.receive(TURNChannelData(channel: unbound, payload: [6]).encoded(), at: harness.now))
        harness.apply(harness.client.receive([0x40, 0x00, 0x00, 0x09, 1], at: harness.now))
        harness.apply(harness.client.receive([0x4F], at: harness.now))
        #expect(harness.events.count == count)
    }

    @Test func streamBytesInSplitAndMergedReads() {
        var harness = Self.allocatedHarness(TURNHarness.configuration(reliable: true))
        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        let stream =
            ScriptedTURNServer.dataIndication(from: Self.peer, [1, 2, 3])
            + TURNChannelData(channel: .first, payload: [4, 5, 6, 7, 8]).encoded(isStream: true)
            + ScriptedTURNServer.dataIndication(from: Self.peer, [9])
        let expected: [TURNClientEvent] = [
            .data(peer: Self.peer, payload: [1, 2, 3]), .data(peer: Self.peer, payload: [4, 5, 6, 7, 8]),
            .data(peer: Self.peer, payload: [9]),
        ]
        for cut in [1, 7, 20, 39, 40, 41, 47, stream.count - 1] {
            var copy = harness
            copy.events = []
            copy.apply(copy.client.receive(streamBytes: Array(stream[..<cut]), at: copy.now))
            copy.apply(copy.client.receive(streamBytes: Array(stream[cut...]), at: copy.now))
            #expect(copy.events == expected, "cut at \(cut)")
        }
        var merged = harness
        merged.events = []
        merged.apply(merged.client.receive(streamBytes: stream, at: merged.now))
        #expect(merged.events == expected)
        // Garbage on the stream loses the allocation.
        merged.apply(merged.client.receive(streamBytes: [0xFF, 0, 0, 0], at: merged.now))
        guard case .failed(let failure)? = merged.events.last else {
            Issue.record("no failure")
            return
        }
        #expect(failure.code == .streamFraming)
    }

    @Test func closeDeletesTheAllocation() throws {
        var harness = Self.allocatedHarness()
        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        harness.advance(to: .seconds(30))
        harness.apply(harness.client.close(at: harness.now))
        let last = try #require(harness.server.requests.last)
        #expect(last.method == .refresh && last.lifetimeSeconds == 0)
        #expect(harness.events.last == .closed)
        #expect(harness.client.state == .closed)
        #expect(harness.client.send([1], to: Self.peer, at: harness.now).isEmpty)
        let before = harness.sends.count
        harness.advance(to: .seconds(3600))
        #expect(harness.sends.count == before)
    }

    @Test func closeWhenTheServerIsGoneStillEnds() {
        var harness = Self.allocatedHarness()
        harness.server.isAnswering = false
        harness.apply(harness.client.close(at: harness.now))
        harness.advance(to: .seconds(60))
        #expect(harness.requestTimes(.refresh) == [0, 500, 1500, 3500, 7500, 15_500, 31_500])
        #expect(harness.events.last == .closed)
    }

    @Test func allocateTimesOutOnTheRFCScheduleOverUDP() {
        var harness = TURNHarness()
        harness.server.isAnswering = false
        harness.start()
        harness.advance(to: .milliseconds(39_499))
        #expect(harness.requestTimes(.allocate) == [0, 500, 1500, 3500, 7500, 15_500, 31_500])
        #expect(harness.events.isEmpty)
        harness.advance(to: .milliseconds(39_500))
        let failure = TURNFailure.errorResponseFailure(harness.events)
        #expect(failure?.code == .timeout && failure?.method == .allocate)
    }

    @Test func overAStreamARequestIsSentOnceAndTimesOutAfterTi() {
        var harness = TURNHarness(configuration: TURNHarness.configuration(reliable: true))
        harness.server.isAnswering = false
        harness.start()
        harness.advance(to: .seconds(60))
        #expect(harness.requestTimes(.allocate) == [0])
        guard case .failed(let failure)? = harness.events.last else {
            Issue.record("no failure")
            return
        }
        #expect(failure.code == .timeout)
        #expect(harness.now == .seconds(60))
    }

    @Test func aLostPermissionRequestFailsOnlyThePermission() {
        var harness = Self.allocatedHarness()
        harness.server.isAnswering = false
        harness.apply(harness.client.createPermission(for: Self.peer.address, at: harness.now))
        harness.advance(to: .milliseconds(39_500))
        guard case .permissionFailed(let address, let failure)? = harness.events.last else {
            Issue.record("no permission failure: \(harness.events)")
            return
        }
        #expect(address == Self.peer.address && failure.code == .timeout)
        #expect(harness.client.state == .allocated)
        #expect(harness.client.permittedPeers.isEmpty)
    }

    @Test func channelsAreLimited() {
        var configuration = TURNHarness.configuration()
        configuration.maximumChannels = 1
        var harness = Self.allocatedHarness(configuration)
        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        harness.apply(harness.client.bindChannel(to: Self.otherPeer, at: harness.now))
        guard case .channelFailed(let peer, let failure)? = harness.events.last else {
            Issue.record("no channel failure")
            return
        }
        #expect(peer == Self.otherPeer && failure.code == .limitReached)
    }

    @Test func forgedSuccessResponsesAreDiscarded() throws {
        var harness = TURNHarness()
        harness.server.isAnswering = false
        harness.start()
        // Answer the first request with a 401 by hand, then a success signed with the wrong key.
        let first = try STUNReceivedMessage(decoding: harness.sends[0].bytes).message
        harness.server.isAnswering = true
        let challenge = harness.server.error(first, .unauthenticated, "Unauthenticated", nonce: true)
        harness.server.isAnswering = false
        harness.apply(harness.client.receive(challenge, at: harness.now))
        let signed = try STUNReceivedMessage(decoding: harness.sends[1].bytes).message
        let forged = STUNMessage(
            .successResponse, .allocate, transactionID: signed.transactionID,
            attributes: [.xorRelayedAddress(Self.peer, transactionID: signed.transactionID)]
        ).encoded(integrity: STUNIntegrity(key: .shortTerm(password: "not the key")))
        harness.apply(harness.client.receive(forged, at: harness.now))
        #expect(harness.events.isEmpty)
        #expect(harness.client.state == .allocating)
    }

    @Test func thePasswordNeverAppearsInDescriptions() {
        var harness = Self.allocatedHarness()
        harness.apply(harness.client.bindChannel(to: Self.peer, at: harness.now))
        let password = ScriptedTURNServer.password
        var dumped = ""
        dump(harness.client, to: &dumped)
        var dumpedConfiguration = ""
        dump(harness.client.configuration, to: &dumpedConfiguration)
        let texts = [
            String(describing: harness.client), String(reflecting: harness.client), "\(harness.client)",
            String(describing: harness.client.configuration), String(reflecting: harness.client.configuration),
            String(describing: harness.client.configuration.credentials),
            String(reflecting: harness.client.configuration.credentials), dumped, dumpedConfiguration,
        ]
        for text in texts {
            #expect(!text.contains(password), "\(text)")
            #expect(text.contains(ScriptedTURNServer.username) || text.contains("TURNClient"))
        }
        #expect(harness.client.configuration.credentials.description.contains("<redacted>"))
    }
}

extension TURNFailure {
    /// The failure of the last `.failed` event.
    static func errorResponseFailure(_ events: [TURNClientEvent]) -> TURNFailure? {
        for event in events.reversed() {
            if case .failed(let failure) = event { return failure }
        }
        return nil
    }
}
