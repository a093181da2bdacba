import Foundation
import Media
import SDP

// `--only srtp-suites`: SRTP protect + unprotect of one RTP packet on SRTPContext, AES_CM_128_HMAC_SHA1_80
// against AEAD_AES_128_GCM, with 160-byte and 1000-byte payloads, on one thread. The four cases run
// interleaved in each repetition (so a busy machine slows them alike); each repetition times `packets`
// packets in thread CPU time. Prints ns per packet (min/median/max) and the GCM/CM ratio per repetition
// (min/median/max).

/// One case: a suite and a payload size.
private struct SRTPSuiteCase {
    var name: String
    var suite: CryptoSuite
    var payload: Int
}

/// Protects and unprotects `packets` packets; returns thread CPU ns per packet.
private func timeSRTP(_ suite: CryptoSuite, payload: Int, packets: Int) throws -> Double {
    var random = SystemRandomNumberGenerator()
    let key = (0..<(suite.keySaltLength ?? 30)).map { _ in UInt8.random(in: 0...255, using: &random) }
    let outbound = try SRTPContext(suite: suite, masterKeySalt: key, direction: .outbound)
    let inbound = try SRTPContext(suite: suite, masterKeySalt: key, direction: .inbound)
    let header: [UInt8] = [0x80, 111, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]
    var buffer = [UInt8](repeating: 0, count: 12 + payload + SRTPContext.maximumTrailerLength)
    for i in 0..<12 { buffer[i] = header[i] }
    for i in 0..<payload { buffer[12 + i] = UInt8(truncatingIfNeeded: i) }
    let start = threadCPUSeconds()
    try buffer.withUnsafeMutableBytes { bytes in
        for sequence in 0..<packets {
            bytes[2] = UInt8(truncatingIfNeeded: sequence >> 8)
            bytes[3] = UInt8(truncatingIfNeeded: sequence)
            let protected = try outbound.transform(bytes, length: 12 + payload, isRTCP: false)
            let plain = try inbound.transform(bytes, length: protected, isRTCP: false)
            guard plain == 12 + payload else { throw MediaBenchmarkError("SRTP round trip lost bytes") }
        }
    }
    return (threadCPUSeconds() - start) * 1e9 / Double(packets)
}

func runSRTPSuiteBenchmark(packets: Int, repetitions: Int) {
    let cases = [
        SRTPSuiteCase(name: "aes-cm-80/160", suite: .aesCM128HMACSHA1_80, payload: 160),
        SRTPSuiteCase(name: "aes-gcm-128/160", suite: .aeadAES128GCM, payload: 160),
        SRTPSuiteCase(name: "aes-cm-80/1000", suite: .aesCM128HMACSHA1_80, payload: 1000),
        SRTPSuiteCase(name: "aes-gcm-128/1000", suite: .aeadAES128GCM, payload: 1000),
    ]
    var samples = [[Double]](repeating: [], count: cases.count)
    do {
        for item in cases { _ = try timeSRTP(item.suite, payload: item.payload, packets: packets / 10) }
        for _ in 0..<repetitions {
            for (i, item) in cases.enumerated() {
                samples[i].append(try timeSRTP(item.suite, payload: item.payload, packets: packets))
            }
        }
    } catch {
        print("srtp-suites: \(error)")
        exit(1)
    }
    print("# SRTP protect + unprotect per packet, thread CPU ns, \(repetitions) x \(packets) packets (min/median/max)")
    for (i, item) in cases.enumerated() {
        let m = Measurement(samples: samples[i])
        print("RESULT\tsrtp-suites\t\(item.name)\t" + String(format: "%.0f/%.0f/%.0f", m.min, m.median, m.max))
    }
    for (cm, gcm, size) in [(0, 1, 160), (2, 3, 1000)] {
        let ratios = Measurement(samples: zip(samples[gcm], samples[cm]).map { $0 / $1 })
        print(
            "RATIO\tsrtp-suites\tgcm/cm \(size) B\t"
                + String(format: "%.2f/%.2f/%.2f", ratios.min, ratios.median, ratios.max))
    }
}
