import Foundation
import Media

// Per-frame costs of the audio path of one call direction, 20 ms frames: G.711 encode/decode (8 kHz, 160
// samples), Opus encode/decode (48 kHz mono, 960 samples, 32 kbit/s, FEC on), and resampling 48 kHz to 8 kHz
// (one frame in, 160 samples out) and back. Input: a 1 kHz tone with a little noise, so Opus is not coding
// digital silence. Warm-up n/10 frames, then `repetitions` runs of n frames; min/median/max ns per frame.

/// Runs the audio benchmark and prints one RESULT line per operation.
/// - Parameters:
///   - n: frames per repetition.
///   - repetitions: timed repetitions.
func runAudioBenchmark(n: Int, repetitions: Int) {
    let frames = max(50, n)
    print("# switchboard Media audio benchmark: frames=\(frames) reps=\(repetitions), 20 ms frames")
    print("# columns: RESULT stack audio operation samples_per_frame min_ns med_ns max_ns reps frames")

    var random = SystemRandomNumberGenerator()
    func noisyTone(_ rate: Int, count: Int) -> [[Int16]] {
        var tone = ToneSource(frequency: 1000, level: -12, format: AudioFormat(sampleRate: rate))
        return (0..<50).map { _ in
            (tone.read(samplesPerChannel: count) ?? []).map {
                Int16(clamping: Int($0) + Int.random(in: -64...64, using: &random))
            }
        }
    }
    let narrow = noisyTone(8000, count: 160)
    let full = noisyTone(48000, count: 960)

    func run(_ name: String, samples: Int, _ body: (Int) -> Void) {
        for i in 0..<max(1, frames / 10) { body(i) }
        let m = measure(repetitions: repetitions, messagesPerRepetition: frames) {
            for i in 0..<frames { body(i) }
        }
        let columns = [
            "RESULT", "switchboard", "audio", name, String(samples), String(Int(m.min)), String(Int(m.median)),
            String(Int(m.max)), String(repetitions), String(frames),
        ]
        print(columns.joined(separator: "\t"))
    }

    var checksum = 0
    for law in [G711Law.muLaw, .aLaw] {
        let name = law == .muLaw ? "pcmu" : "pcma"
        var encoder = G711Encoder(law: law)
        var decoder = G711Decoder(law: law)
        let payloads = narrow.compactMap { try? encoder.encode($0) }
        run("\(name)-encode", samples: 160) { i in
            checksum &+= (try? encoder.encode(narrow[i % narrow.count]))?.count ?? 0
        }
        run("\(name)-decode", samples: 160) { i in
            checksum &+= (try? decoder.decode(payloads[i % payloads.count]))?.count ?? 0
        }
    }

    do {
        let encoder = try OpusEncoder(configuration: OpusConfiguration(bitrate: 32000, packetLossPercentage: 10))
        let decoder = try OpusDecoder()
        let payloads = try full.map { try encoder.encode($0) }
        print("# opus packet bytes: mean \(payloads.reduce(0) { $0 + $1.count } / payloads.count)")
        run("opus-encode", samples: 960) { i in
            checksum &+= (try? encoder.encode(full[i % full.count]))?.count ?? 0
        }
        run("opus-decode", samples: 960) { i in
            checksum &+= (try? decoder.decode(payloads[i % payloads.count]))?.count ?? 0
        }
        run("opus-plc", samples: 960) { _ in checksum &+= decoder.concealLoss(next: nil).count }
        run("opus-fec", samples: 960) { i in
            checksum &+= decoder.concealLoss(next: payloads[i % payloads.count][...]).count
        }
        // What the encoder's settings cost: libopus' complexity (10 by default) and the FEC layer.
        let variants: [(String, OpusConfiguration)] = [
            ("opus-encode-complexity5", OpusConfiguration(complexity: 5)),
            ("opus-encode-complexity1", OpusConfiguration(complexity: 1)),
            ("opus-encode-nofec", OpusConfiguration(isInBandFECEnabled: false)),
            ("opus-encode-16k-wideband", OpusConfiguration(bitrate: 16000, maxBandwidth: .wideband)),
        ]
        for (name, configuration) in variants {
            let variant = try OpusEncoder(configuration: configuration)
            run(name, samples: 960) { i in checksum &+= (try? variant.encode(full[i % full.count]))?.count ?? 0 }
        }
    } catch {
        print("# opus unavailable: \(error)")
    }

    var down = Resampler(inputRate: 48000, outputRate: 8000)
    var output: [Int16] = []
    output.reserveCapacity(200)
    print(
        "# resampler taps per output: 48k->8k \(down.tapsPerPhase), 8k->48k "
            + "\(Resampler(inputRate: 8000, outputRate: 48000).tapsPerPhase)")
    run("resample-48k-8k", samples: 960) { i in
        output.removeAll(keepingCapacity: true)
        down.process(full[i % full.count], appendingTo: &output)
        checksum &+= output.count
    }
    var up = Resampler(inputRate: 8000, outputRate: 48000)
    run("resample-8k-48k", samples: 160) { i in
        output.removeAll(keepingCapacity: true)
        up.process(narrow[i % narrow.count], appendingTo: &output)
        checksum &+= output.count
    }
    var cd = Resampler(inputRate: 44100, outputRate: 48000)
    let cdFrames = noisyTone(44100, count: 882)
    run("resample-44.1k-48k", samples: 882) { i in
        output.removeAll(keepingCapacity: true)
        cd.process(cdFrames[i % cdFrames.count], appendingTo: &output)
        checksum &+= output.count
    }
    print("# checksum \(checksum)")
}
