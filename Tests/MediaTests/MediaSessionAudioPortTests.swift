import Media
import Testing

/// A sink that keeps what it is given, and fails after `limit` frames when one is set.
private struct CollectingSink: AudioSink {
    var format: AudioFormat
    var samples: [Int16] = []
    var writes = 0
    var limit: Int?

    mutating func write(_ samples: [Int16]) throws(AudioIOError) {
        if let limit, writes >= limit { throw .writeFailed("test", errno: 28) }
        writes += 1
        self.samples += samples
    }
}

@Suite("Media session: the source and sink port")
struct MediaSessionAudioPortTests {
    @Test func aSourceAndSinksCarryTheCall() throws {
        let call = try Call()
        var alice = call.alice.session
        var bob = call.bob.session
        var alicePort = AudioDevicePort(
            source: ToneSource(frequency: 1000, format: .narrowband), sink: nil,
            sentSink: CollectingSink(format: .narrowband))
        var bobPort = AudioDevicePort(source: nil, sink: CollectingSink(format: .narrowband))
        for tick in 0...100 {
            let now = MediaInstant.milliseconds(Int64(tick) * 20)
            alice.advance(to: now, audio: &alicePort)
            while let transmission = alice.nextTransmission() {
                bob.receive(transmission.bytes, from: "192.0.2.1:4000", on: transmission.port, at: now)
            }
            bob.advance(to: now, audio: &bobPort)
        }
        let heard = try #require(bobPort.sink as? CollectingSink)
        let recorded = try #require(alicePort.sentSink as? CollectingSink)
        #expect(heard.writes == 101 && recorded.writes == 101)
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: Array(heard.samples.suffix(4000)), sampleRate: 8000))
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: Array(recorded.samples.suffix(4000)), sampleRate: 8000))
        #expect(alicePort.error == nil && bobPort.error == nil)
    }

    @Test func aFailingSinkIsNotCalledAgain() throws {
        let call = try Call()
        var session = call.bob.session
        var port = AudioDevicePort(source: nil, sink: CollectingSink(format: .narrowband, limit: 3))
        session.advance(to: .milliseconds(200), audio: &port)
        #expect(port.error == .writeFailed("test", errno: 28))
        #expect((port.sink as? CollectingSink)?.writes == 3)
    }
}
