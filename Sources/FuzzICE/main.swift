import ICE
import STUN

// libFuzzer entry point over the ICE SDP grammar (candidate lines and the other ICE attributes) and the agent's
// handling of received datagrams: raw bytes, and messages built from the input and signed with the right key so
// that they get past MESSAGE-INTEGRITY. Built only by scripts/fuzz (`--sanitize=fuzzer`); a plain build makes an
// empty program.

/// A fixed generator: every run draws the same IDs.
struct CountingGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64 = 0x4943_4521
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

let localBase = STUNTransportAddress(address: .v4(0x0A00_0001), port: 5000)
let remoteHost = STUNTransportAddress(address: .v4(0x0A00_0002), port: 6000)
// Both pass RFC 8839's rules, so the `try?` cannot fail.
let localCredentials = try? ICECredentials(ufrag: "LOCL", password: "localpasswordlocalpassword")
let remoteCredentials = try? ICECredentials(ufrag: "RMTE", password: "remotepasswordremotepassword")

func fuzzGrammar(_ text: String) {
    if let candidate = try? ICECandidate(sdpValue: text) {
        guard let again = try? ICECandidate(sdpValue: candidate.sdpValue) else {
            fatalError("printed candidate does not parse: \(candidate.sdpValue)")
        }
        if again != candidate { fatalError("candidate changed in the round trip") }
    }
    var attributes = ICESDPAttributes()
    for name in ["ice-ufrag", "ice-pwd", "ice-options", "remote-candidates", "ice-lite", "end-of-candidates"] {
        _ = try? attributes.parse(name: name, value: text)
    }
    var reread = ICESDPAttributes()
    for line in attributes.attributeLines {
        let parts = line.split(separator: ":", maxSplits: 1)
        guard (try? reread.parse(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : nil)) == true
        else { fatalError("printed attribute does not parse: \(line)") }
    }
    if reread != attributes { fatalError("attributes changed in the round trip") }
}

/// An agent with one host pair whose first check is out; returns it and that check's transaction ID.
func makeAgent(role: ICERole) -> (ICEAgent<CountingGenerator>, [UInt8])? {
    guard let localCredentials, let remoteCredentials else { return nil }
    var configuration = ICEAgentConfiguration(initialRole: role)
    configuration.maximumPairs = 8
    configuration.maximumRemoteCandidates = 4
    var agent = ICEAgent(configuration: configuration, credentials: localCredentials, generator: CountingGenerator())
    _ = try? agent.addLocalCandidate(.host(address: localBase, localPreference: 65_535), at: .zero)
    _ = agent.setRemoteParameters(credentials: remoteCredentials, isLite: false, at: .zero)
    var transactionID: [UInt8] = []
    let actions = (try? agent.addRemoteCandidate(.host(address: remoteHost, localPreference: 65_535), at: .zero)) ?? []
    for case .send(let bytes, _, _) in actions where bytes.count >= 20 { transactionID = Array(bytes[8..<20]) }
    return (agent, transactionID)
}

/// Attributes cut from the input: type (2), length (1), value.
func attributes(from bytes: ArraySlice<UInt8>) -> [STUNAttribute] {
    var out: [STUNAttribute] = []
    var index = bytes.startIndex
    while index + 3 <= bytes.endIndex, out.count < 16 {
        let type = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
        let length = Int(bytes[index + 2]) % 40
        let start = index + 3
        let end = min(start + length, bytes.endIndex)
        out.append(STUNAttribute(type: STUNAttributeType(rawValue: type), value: Array(bytes[start..<end])))
        index = end
    }
    return out
}

func fuzzAgent(_ bytes: [UInt8]) {
    guard bytes.count >= 2, let localCredentials, let remoteCredentials else { return }
    let role: ICERole = bytes[1] & 1 == 0 ? .controlling : .controlled
    guard let made = makeAgent(role: role) else { return }
    var agent = made.0
    let transactionID = made.1
    let source = bytes[1] & 2 == 0 ? remoteHost : STUNTransportAddress(address: .v4(0xC000_0201), port: 7)
    var datagram = Array(bytes.dropFirst(2))
    if bytes[0] & 0x10 != 0 {
        // A message built from the input: class from the first byte, signed with the key that side expects.
        let messageClass = STUNMessageClass(rawValue: bytes[1] >> 6) ?? .request
        let id = STUNTransactionID(bytes: transactionID) ?? STUNTransactionID(high: 1, low: 2)
        let message = STUNMessage(messageClass, .binding, transactionID: id, attributes: attributes(from: bytes[2...]))
        let password = messageClass == .request ? localCredentials.password : remoteCredentials.password
        datagram = message.encoded(integrity: STUNIntegrity(key: .shortTerm(password: password)), fingerprint: true)
    } else if datagram.count >= 20, transactionID.count == 12, bytes[1] & 4 != 0 {
        datagram.replaceSubrange(8..<20, with: transactionID)
    }
    var now = STUNInstant.zero
    var sends = 0
    for step in 0..<4 {
        now = now + .milliseconds(Int64(step) * 20)
        for action in agent.receive(datagram, on: localBase, from: source, at: now) {
            if case .send = action { sends += 1 }
        }
    }
    for step in 1...100 {
        for action in agent.advance(to: .milliseconds(Int64(step) * 1_000)) {
            if case .send = action { sends += 1 }
        }
    }
    if agent.pairList.count > 8 || agent.remoteCandidates.count > 4 { fatalError("a table outgrew its bound") }
    if sends > 400 { fatalError("too many sends: \(sends)") }
    _ = agent.description
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes[0] & 0x80 == 0 {
        fuzzGrammar(String(decoding: bytes.dropFirst(), as: UTF8.self))
    } else {
        fuzzAgent(bytes)
    }
    return 0
}
