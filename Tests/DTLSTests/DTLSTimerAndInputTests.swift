import DTLS
import Media
import SDP
import Testing

@Suite("DTLS engine timers and bad input")
struct DTLSTimerAndInputTests {
    /// After its first flight the client asks to be woken at the retransmission timeout it configured, and
    /// sends nothing before then.
    @Test func theFirstFlightArmsTheConfiguredRetransmissionDeadline() throws {
        let pair = try DTLSPair { client, _ in client.initialRetransmissionTimeout = .milliseconds(400) }
        let start = pair.now
        pair.start()
        #expect(pair.clientSent.count == 1)
        #expect(pair.client.nextDeadline == start + .milliseconds(400))
        #expect(pair.server.nextDeadline == start + .seconds(15))
        pair.advance(to: start + .milliseconds(399))
        #expect(pair.clientSent.count == 1)
        #expect(pair.client.state == .handshaking)
    }

    /// OpenSSL keeps its own wall-clock stamp of the flight: asked at a virtual deadline far ahead of the wall
    /// clock, it declines, and the engine re-arms for the wall-clock time OpenSSL says is left instead of
    /// spinning (see the type's documentation).
    @Test func openSSLsWallClockGatesAnEarlyAsk() throws {
        let pair = try DTLSPair { client, _ in
            client.initialRetransmissionTimeout = .seconds(30)
            client.handshakeTimeout = .seconds(120)
        }
        let start = pair.now
        pair.start()
        pair.toServer = []
        pair.advance(to: start + .seconds(30))
        #expect(pair.clientSent.count == 1)
        let rearmed = try #require(pair.client.nextDeadline)
        #expect(rearmed > start + .seconds(30))
        #expect(rearmed <= start + .seconds(60))
    }

    /// A lost flight: the handshake does not complete without the retransmission, and the engine keeps asking
    /// until its deadline; what OpenSSL sends then completes it.
    @Test func aLostFlightLeavesTheRetransmissionDeadlineArmed() throws {
        let pair = try DTLSPair()
        pair.start()
        pair.toServer = []
        #expect(pair.client.nextDeadline == pair.now + .seconds(1))
        try pair.deliver()
        #expect(pair.client.state == .handshaking && pair.server.state == .handshaking)
    }

    /// A server that hears nothing, and a client whose flights are all lost, fail at the handshake deadline.
    @Test func aHandshakeThatNeverCompletesEndsAtTheDeadline() throws {
        let pair = try DTLSPair { client, server in
            client.handshakeTimeout = .seconds(10)
            server.handshakeTimeout = .seconds(10)
        }
        let start = pair.now
        pair.start()
        var now = start
        while let deadline = [pair.client.nextDeadline, pair.server.nextDeadline].compactMap({ $0 }).min(),
            deadline < start + .seconds(10), now < start + .seconds(10)
        {
            now = deadline
            pair.advance(to: now)
            pair.toServer = []
        }
        #expect(pair.client.state == .handshaking)
        pair.advance(to: start + .seconds(10))
        #expect(DTLSPair.failure(pair.clientEvents)?.code == .handshakeTimeout)
        #expect(DTLSPair.failure(pair.serverEvents)?.code == .handshakeTimeout)
        #expect(pair.client.nextDeadline == nil && pair.server.nextDeadline == nil)
        #expect(pair.client.advance(to: start + .seconds(20)).isEmpty)
    }

    /// Datagrams that are not whole DTLS records are refused with a typed error; the handshake goes on.
    @Test func garbageAndTruncatedRecordsAreTypedErrors() throws {
        let pair = try DTLSPair()
        pair.start()
        let clientHello = try #require(pair.toServer.first)
        let bad: [[UInt8]] = [
            [],
            [0x16],
            Array(clientHello.prefix(12)),
            Array(clientHello.dropLast()),
            [0x40] + clientHello.dropFirst(),
            [0x16, 0x03, 0x03] + clientHello.dropFirst(3),
            clientHello + [0x16, 0xFE, 0xFD, 0, 0],
            [0x17, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + Array(repeating: 0, count: 100),
        ]
        for datagram in bad {
            #expect { try pair.server.receive(datagram, at: pair.now) } throws: {
                ($0 as? DTLSError)?.code == .badRecord
            }
            #expect(pair.server.state == .handshaking)
        }
        try pair.deliver()
        #expect(pair.client.state == .connected && pair.server.state == .connected)
    }

    /// Well-framed records of nonsense reach OpenSSL: whatever it makes of them is a typed outcome.
    @Test func wellFramedNonsenseIsATypedOutcome() throws {
        var generator = SystemRandomNumberGenerator()
        for type: UInt8 in [20, 21, 22, 23] {
            let pair = try DTLSPair()
            pair.start()
            var record: [UInt8] = [type, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 9, 0, 40]
            record += (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let actions = try pair.server.receive(record, at: pair.now)
            for case .failed(let error) in actions { #expect(!error.detail.isEmpty) }
        }
    }

    /// A client datagram before the client started, and anything after the end, are refused.
    @Test func datagramsOutsideTheAssociationAreRefused() throws {
        let pair = try DTLSPair()
        let record: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect { try pair.client.receive(record, at: pair.now) } throws: { ($0 as? DTLSError)?.code == .notConnected }
        #expect(pair.client.state == .idle)
    }
}
