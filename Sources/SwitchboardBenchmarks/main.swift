import CAllocationCounter
import Foundation
import SIPMessage

// Release-mode benchmarks (not timed tests). Run: swift run -c release switchboard-bench [--n N] [--corpus DIR]
// Method of ../shared/corpora/bench/README.md: files sorted by name, warm-up n/10, 5 repetitions, each file
// parsed n times and the mix as n/10 rounds of all files; min/median/max ns per message.

struct Options {
    var n = 20_000
    var repetitions = 5
    var corpus = "Tests/SIPMessageTests/Data/bench"
    var filter: String?
    var view: String?
    var seconds = 9.0
    /// `--srtp`; unset, the keying's default (``CapacityKeying/defaultBackend``).
    var srtp: SRTPBackend?
    /// `--keying sdes|dtls` and `--suite` of the capacity ramp (`--only media`, `--only media-capacity`).
    var keying = CapacityKeying()
    /// The SRTP implementation the media benchmarks run.
    var srtpBackend: SRTPBackend { srtp ?? keying.defaultBackend }
}

func parseOptions() -> Options {
    var options = Options()
    var args = Array(CommandLine.arguments.dropFirst())
    while !args.isEmpty {
        let flag = args.removeFirst()
        let value = args.isEmpty ? nil : args.removeFirst()
        switch (flag, value) {
        case ("--n", let v?): options.n = Int(v) ?? options.n
        case ("--reps", let v?): options.repetitions = Int(v) ?? options.repetitions
        case ("--corpus", let v?): options.corpus = v
        case ("--only", let v?): options.filter = v
        case ("--view", let v?): options.view = v
        case ("--seconds", let v?): options.seconds = Double(v) ?? options.seconds
        case ("--srtp", let v?) where SRTPBackend(rawValue: v) != nil:
            options.srtp = SRTPBackend(rawValue: v)
        case ("--keying", let v?) where CapacityKeying.Method(rawValue: v) != nil:
            options.keying.method = CapacityKeying.Method(rawValue: v) ?? .sdes
        case ("--suite", let v?) where CapacityKeying.Suite(rawValue: v) != nil:
            options.keying.suite = CapacityKeying.Suite(rawValue: v) ?? .standard
        default:
            FileHandle.standardError.write(
                Data(
                    "usage: switchboard-bench [--n N] [--reps R] [--corpus DIR] [--only parse|access|access-bytes|serialize|views|transactions|invite|audio|media|memory|media-capacity|srtp-suites|dtls|relay|ice-memory] [--view NAME] [--seconds S] [--srtp native|libsrtp] [--keying sdes|dtls] [--suite default|aes-cm-80|aes-cm-32|aes-gcm-128]\n"
                        .utf8)
            )
            exit(2)
        }
    }
    return options
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Reads what the access mode reads: top Via host/port/branch, From/To URI user/host/tag, CSeq, Call-ID and
/// the first Contact's host/port.
@inline(never)
func access(_ message: Message) -> Int {
    var checksum = 0
    do {
        let fields = message.headerFields
        if let via = try fields.topVia {
            checksum &+= via.host.text.utf8.count &+ Int(via.port ?? 0) &+ (via.branch?.utf8.count ?? 0)
        }
        func read(_ address: NameAddress?) {
            guard let address else { return }
            if case .sip(let uri) = address.uri {
                checksum &+= (uri.escapedUser?.utf8.count ?? 0) &+ uri.host.text.utf8.count
            }
            checksum &+= address.tag?.utf8.count ?? 0
        }
        read(try fields.from)
        read(try fields.to)
        if let cseq = try fields.cseq { checksum &+= Int(cseq.sequenceNumber) &+ cseq.method.rawValue.utf8.count }
        checksum &+= try fields.callID?.utf8.count ?? 0
        if case .address(let contact)? = try fields.firstContact, case .sip(let uri) = contact.uri {
            checksum &+= uri.host.text.utf8.count &+ Int(uri.port ?? 0)
        }
    } catch {
        checksum &+= 1
    }
    return checksum
}

/// Reads the same values as `access` through the zero-copy byte accessors (`SIPHost.bytes`, `Via.branchBytes`,
/// `SIPURI.escapedUserBytes`, `NameAddress.tagBytes`, `callIDBytes`): `SIPBytes` views of the message, no strings.
@inline(never)
func accessBytes(_ message: Message) -> Int {
    var checksum = 0
    do {
        let fields = message.headerFields
        if let via = try fields.topVia {
            checksum &+= via.host.bytes.count &+ Int(via.port ?? 0) &+ (via.branchBytes?.count ?? 0)
        }
        func read(_ address: NameAddress?) {
            guard let address else { return }
            if case .sip(let uri) = address.uri {
                checksum &+= (uri.escapedUserBytes?.count ?? 0) &+ uri.host.bytes.count
            }
            checksum &+= address.tagBytes?.count ?? 0
        }
        read(try fields.from)
        read(try fields.to)
        if let cseq = try fields.cseq { checksum &+= Int(cseq.sequenceNumber) &+ cseq.method.rawValue.utf8.count }
        checksum &+= try fields.callIDBytes?.count ?? 0
        if case .address(let contact)? = try fields.firstContact, case .sip(let uri) = contact.uri {
            checksum &+= uri.host.bytes.count &+ Int(uri.port ?? 0)
        }
    } catch {
        checksum &+= 1
    }
    return checksum
}

struct Measurement {
    var samples: [Double]  // ns per message, one per repetition
    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }
    var median: Double {
        let s = samples.sorted()
        return s.isEmpty ? 0 : s[s.count / 2]
    }
}

func measure(repetitions: Int, messagesPerRepetition: Int, _ body: () -> Void) -> Measurement {
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let start = ContinuousClock.now
        body()
        let elapsed = ContinuousClock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        samples.append(ns / Double(messagesPerRepetition))
    }
    return Measurement(samples: samples)
}

func report(_ parser: String, _ mode: String, _ name: String, _ bytes: Int, _ m: Measurement, _ reps: Int, _ n: Int) {
    let line = [
        "RESULT", parser, mode, name, String(bytes), String(format: "%.0f", m.min), String(format: "%.0f", m.median),
        String(format: "%.0f", m.max), String(reps), String(n),
    ].joined(separator: "\t")
    print(line)
}

let options = parseOptions()
if options.filter == "transactions" {
    runTransactionBenchmark(n: options.n, repetitions: options.repetitions, only: options.view)
    exit(0)
}
if options.filter == "memory" {
    runCoreMemoryBenchmark(n: options.n == Options().n ? 10_000 : options.n, repetitions: options.repetitions)
    exit(0)
}
if options.filter == "media" {
    runMediaBenchmark(
        packets: options.n / 20, repetitions: max(options.repetitions, 9), seconds: options.seconds, only: options.view,
        srtp: options.srtpBackend, keying: options.keying)
    exit(0)
}
if options.filter == "media-capacity" {
    // The capacity ramp alone (`--view pcmu|opus` for one codec), keyed as `--keying` and `--suite` say.
    runMediaCapacity(
        MediaBenchmarkCodec.selected(by: options.view), seconds: options.seconds, perStreamCompute: [:],
        srtp: options.srtpBackend, keying: options.keying)
    exit(0)
}
if options.filter == "ice-memory" {
    runICEMemoryBenchmark(
        calls: options.n == Options().n ? 200 : options.n, repetitions: options.repetitions, seconds: options.seconds)
    exit(0)
}
if options.filter == "relay" {
    runRelayBenchmark(packets: options.n / 4, repetitions: max(options.repetitions, 9))
    exit(0)
}
if options.filter == "invite" {
    runInviteBenchmark(n: options.n, repetitions: options.repetitions, corpus: options.corpus)
    exit(0)
}
if options.filter == "srtp-suites" {
    runSRTPSuiteBenchmark(packets: options.n * 5, repetitions: max(options.repetitions, 9))
    exit(0)
}
if options.filter == "dtls" {
    runDTLSBenchmark(handshakes: max(options.n / 100, 20), repetitions: max(options.repetitions, 7))
    exit(0)
}
if options.filter == "audio" {
    runAudioBenchmark(n: options.n / 10, repetitions: options.repetitions)
    exit(0)
}
let corpusURL = URL(fileURLWithPath: options.corpus)
guard
    let names = try? FileManager.default.contentsOfDirectory(atPath: corpusURL.path).filter({ $0.hasSuffix(".sip") })
        .sorted(), !names.isEmpty
else {
    FileHandle.standardError.write(Data("no .sip files in \(options.corpus)\n".utf8))
    exit(2)
}
let files: [(name: String, bytes: [UInt8])] = names.compactMap { name in
    guard let data = FileManager.default.contents(atPath: corpusURL.appendingPathComponent(name).path) else {
        return nil
    }
    return (name, [UInt8](data))
}
for file in files {
    do { _ = try Message(parsing: file.bytes) } catch {
        FileHandle.standardError.write(Data("\(file.name) does not parse: \(error)\n".utf8))
        exit(1)
    }
}

let n = options.n
let reps = options.repetitions
let totalBytes = files.reduce(0) { $0 + $1.bytes.count }
print(
    "# switchboard SIPMessage benchmark: n=\(n) reps=\(reps) files=\(files.count) mean bytes=\(totalBytes / files.count)"
)
print("# columns: RESULT parser mode file bytes min_ns med_ns max_ns reps n")

func runParse(_ bytes: [UInt8]) {
    do { blackHole(try Message(parsing: bytes)) } catch { blackHole(error) }
}

func runAccess(_ bytes: [UInt8]) -> Int {
    do { return access(try Message(parsing: bytes)) } catch { return -1 }
}

func runAccessBytes(_ bytes: [UInt8]) -> Int {
    do { return accessBytes(try Message(parsing: bytes)) } catch { return -1 }
}

var sink = 0

/// Warm-up, then each file and the mix, for one mode; `one` handles one message and returns a checksum. The mode is
/// chosen once, outside the timed loops.
@MainActor @inline(__always)
func runMode(_ mode: String, _ one: ([UInt8]) -> Int) {
    guard options.filter == nil || options.filter == mode else { return }
    // Warm-up: n/10 iterations over every file.
    for _ in 0..<max(1, n / 10) {
        for file in files { sink &+= one(file.bytes) }
    }
    for file in files {
        let m = measure(repetitions: reps, messagesPerRepetition: n) {
            for _ in 0..<n { sink &+= one(file.bytes) }
        }
        report("switchboard", mode, file.name, file.bytes.count, m, reps, n)
    }
    let rounds = max(1, n / 10)
    let mix = measure(repetitions: reps, messagesPerRepetition: rounds * files.count) {
        for _ in 0..<rounds {
            for file in files { sink &+= one(file.bytes) }
        }
    }
    report("switchboard", mode, "mix", totalBytes / files.count, mix, reps, n)
}

runMode("parse") {
    runParse($0)
    return 0
}
// `access` reads the values as strings; `access-bytes` reads the same values as `SIPBytes` views of the message.
runMode("access", runAccess)
runMode("access-bytes", runAccessBytes)

if options.filter == nil || options.filter == "serialize" {
    // Serialization of parsed messages (names as received) and of a request built from typed values.
    let parsed = files.compactMap { try? Message(parsing: $0.bytes) }
    for _ in 0..<max(1, n / 10) { for m in parsed { blackHole(m.serialized()) } }
    let rounds = max(1, n / 10)
    let mix = measure(repetitions: reps, messagesPerRepetition: rounds * parsed.count) {
        for _ in 0..<rounds { for m in parsed { blackHole(m.serialized()) } }
    }
    report("switchboard", "serialize", "mix", totalBytes / files.count, mix, reps, n)

    func buildInvite() -> SIPRequest {
        guard let host = SIPHost("example.org"), let local = SIPHost("192.0.2.10") else {
            return SIPRequest(method: .invite, uri: .other(AbsoluteURI(scheme: "x", content: "y")))
        }
        var request = SIPRequest(method: .invite, uri: .sip(SIPURI(user: "bob", host: host)))
        request.headerFields.append(.via, Via(transport: "UDP", host: local, port: 5060, branch: "z9hG4bK776asdhds"))
        request.headerFields.append(.maxForwards, 70)
        var from = NameAddress(displayName: "Alice", uri: SIPURI(user: "alice", host: local))
        from.tag = "1928301774"
        request.headerFields.append(.from, from)
        request.headerFields.append(.to, NameAddress(displayName: "Bob", uri: SIPURI(user: "bob", host: host)))
        request.headerFields.append(.callID, "a84b4c76e66710@192.0.2.10")
        request.headerFields.append(.cseq, CSeq(314159, .invite))
        request.headerFields.append(.contact, NameAddress(uri: SIPURI(user: "alice", host: local, port: 5060)))
        return request
    }
    let built = buildInvite()
    let buildRounds = max(1, n)
    let bm = measure(repetitions: reps, messagesPerRepetition: buildRounds) {
        for _ in 0..<buildRounds { blackHole(buildInvite().serialized()) }
    }
    report("switchboard", "build+serialize", "invite", built.serialized().count, bm, reps, n)
}

if options.filter == nil || options.filter == "views" {
    // The cost of each typed view alone, on already parsed messages (mean over the ten files).
    let parsed = files.compactMap { try? Message(parsing: $0.bytes).headerFields }
    let views: [(String, (SIPFields) -> Int)] = [
        ("topVia", { (try? $0.topVia)?.port.map(Int.init) ?? 0 }),
        ("from", { (try? $0.from)?.tag?.utf8.count ?? 0 }),
        ("to", { (try? $0.to)?.tag?.utf8.count ?? 0 }),
        ("cseq", { Int((try? $0.cseq)?.sequenceNumber ?? 0) }),
        ("callID", { (try? $0.callID)?.utf8.count ?? 0 }),
        ("firstContact", { (try? $0.firstContact)?.uri?.sipURI?.port.map(Int.init) ?? 0 }),
    ]
    let rounds = max(1, n / 10)
    for (name, view) in views where options.view == nil || options.view == name {
        for _ in 0..<rounds / 10 { for f in parsed { sink &+= view(f) } }
        let m = measure(repetitions: reps, messagesPerRepetition: rounds * parsed.count) {
            for _ in 0..<rounds { for f in parsed { sink &+= view(f) } }
        }
        report("switchboard", "view", name, 0, m, reps, n)
    }
}

// Allocations per message, counted by the benchmark's own malloc wrappers.
@MainActor
func countAllocations(_ mode: String, _ one: ([UInt8]) -> Int) {
    guard options.filter == nil || options.filter == mode else { return }
    var perFile: [String] = []
    var total: UInt64 = 0
    for file in files {
        let before = switchboard_allocation_count()
        let iterations: UInt64 = 1000
        for _ in 0..<iterations { sink &+= one(file.bytes) }
        let count = (switchboard_allocation_count() - before) / iterations
        total += count
        perFile.append("\(file.name)=\(count)")
    }
    print(
        "ALLOCS\tswitchboard\t\(mode)\tmean=\(String(format: "%.1f", Double(total) / Double(files.count)))\t"
            + perFile.joined(separator: " "))
}
countAllocations("parse") {
    runParse($0)
    return 0
}
countAllocations("access", runAccess)
countAllocations("access-bytes", runAccessBytes)
print("# checksum \(sink)")
