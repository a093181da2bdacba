import STUN

// libFuzzer entry point over the STUN decoder, every typed view, the encoder, the integrity checks, the
// Binding transaction, and TURN: ChannelData, the stream framer and the client. Built only by scripts/fuzz
// (`--sanitize=fuzzer`); a plain build makes an empty program.

/// The short-term key of RFC 5769, so the seeds' integrity checks pass and mutations of them fail.
let fixedKey = STUNKey.shortTerm(password: "VOkJxbRl1RmTxUk/WvJxBt")
/// Room for anything an accepted message re-encodes to (a truncated MESSAGE-INTEGRITY-SHA256 grows to 32 bytes).
let roomyLimits = STUNDecodingLimits(maximumMessageSize: 70_000, maximumAttributes: 64)

/// A fixed generator: the transaction's ID is the same on every run.
struct CountingGenerator: RandomNumberGenerator {
    var state: UInt64 = 0x5354_554E
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

/// Reads every typed view; `nil` is fine, traps are not.
func touchTypedViews(_ message: STUNMessage) {
    _ = message.xorMappedAddress?.description
    _ = message.mappedAddress?.description
    _ = message.username
    _ = message.software
    _ = message.realm
    _ = message.nonce
    _ = message.errorCode
    _ = message.unknownAttributes
    _ = message.passwordAlgorithm
    _ = message.passwordAlgorithms
    _ = message.priority
    _ = message.iceControlling
    _ = message.iceControlled
    _ = message.hasUseCandidate
    _ = message.channelNumber
    _ = message.lifetimeSeconds
    _ = message.xorPeerAddresses.map(\.description)
    _ = message.data
    _ = message.xorRelayedAddresses.map(\.description)
    _ = message.requestedAddressFamily
    _ = message.evenPortReservesNext
    _ = message.requestedTransport
    _ = message.hasDontFragment
    _ = message.reservationToken
    _ = message.additionalAddressFamily
    _ = message.addressErrorCode
    _ = message.icmp
    for attribute in message.attributes { _ = attribute.type.description }
}

/// The attributes an encoder copies (it computes the integrity attributes and FINGERPRINT itself).
func copied(_ message: STUNMessage) -> [STUNAttribute] {
    message.attributes.filter { !STUNAttributeType.computed.contains($0.type) }
}

func checkRoundTrip(_ received: STUNReceivedMessage) {
    let message = received.message
    touchTypedViews(message)
    _ = received.isAuthentic(with: fixedKey)
    _ = received.checkMessageIntegrity(with: fixedKey)
    _ = received.checkMessageIntegritySHA256(with: fixedKey)

    // Re-encoded with the fixed key, a decoded message decodes again to the same attributes and verifies.
    let signs = received.hasMessageIntegrity || received.hasMessageIntegritySHA256
    let integrity =
        signs
        ? STUNIntegrity(
            key: fixedKey, sha1: received.hasMessageIntegrity, sha256: received.hasMessageIntegritySHA256) : nil
    let wire = message.encoded(integrity: integrity, fingerprint: received.hasFingerprint)
    guard let again = try? STUNReceivedMessage(decoding: wire, limits: roomyLimits) else {
        fatalError("re-encoded message does not decode")
    }
    if copied(again.message) != copied(message) { fatalError("attributes changed in the round trip") }
    if again.message.transactionID != message.transactionID || again.message.method != message.method
        || again.message.messageClass != message.messageClass
    {
        fatalError("header changed in the round trip")
    }
    if signs, !again.isAuthentic(with: fixedKey) { fatalError("re-signed message does not verify") }
    if again.hasFingerprint != received.hasFingerprint { fatalError("fingerprint lost") }
    if again.unknownRequiredAttributes != received.unknownRequiredAttributes { fatalError("unknown set changed") }
    // Plain encoding is a fixed point after one round.
    let plain = again.message.encoded()
    guard let third = try? STUNReceivedMessage(decoding: plain, limits: roomyLimits) else {
        fatalError("plain encoding does not decode")
    }
    if third.message.encoded() != plain { fatalError("plain encoding is not stable") }
}

/// Feeds `bytes` (with the transaction's ID patched in, so that responses match) to a Binding transaction at
/// instants taken from the input, and checks it sends at most Rc times and finishes at most once.
func driveTransaction(_ bytes: [UInt8], reliable: Bool) {
    var generator = CountingGenerator()
    var transaction = STUNBindingTransaction(isReliable: reliable, generator: &generator)
    var patched = bytes
    if patched.count >= 20 { patched.replaceSubrange(8..<20, with: transaction.transactionID.bytes) }
    var sends = 0
    var finishes = 0
    var deadline: STUNInstant?
    func count(_ actions: [STUNTransactionAction]) {
        for action in actions {
            switch action {
            case .send: sends += 1
            case .armTimer(let at): deadline = at
            case .finished: finishes += 1
            }
        }
    }
    count(transaction.start(at: .zero))
    var now = STUNInstant.zero
    for (index, byte) in bytes.prefix(16).enumerated() {
        now = now + .milliseconds(Int64(byte) * 50)
        if let at = deadline, at <= now {
            deadline = nil
            count(transaction.timerFired(at: at))
        }
        count(transaction.receive(index % 2 == 0 ? patched : bytes, at: now))
    }
    while let at = deadline, finishes == 0 {
        deadline = nil
        count(transaction.timerFired(at: at))
    }
    if sends > (reliable ? 1 : 7) { fatalError("too many sends: \(sends)") }
    if finishes != 1 { fatalError("finished \(finishes) times") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let received = try? STUNReceivedMessage(decoding: bytes, limits: STUNDecodingLimits(maximumMessageSize: 4096)) {
        checkRoundTrip(received)
    }
    driveTransaction(bytes, reliable: bytes[0] & 1 == 1)
    checkChannelData(bytes)
    checkFramer(bytes)
    driveTURNClient(bytes, reliable: bytes[0] & 2 == 2)
    return 0
}

/// ChannelData decoded from a datagram or a stream frame re-encodes to a message that decodes the same.
func checkChannelData(_ bytes: [UInt8]) {
    for isStream in [false, true] {
        guard let message = try? TURNChannelData(decoding: bytes, isStream: isStream) else { continue }
        guard TURNChannelNumber.validRange.contains(message.channel.rawValue) else { fatalError("channel range") }
        let wire = message.encoded(isStream: isStream)
        guard let again = try? TURNChannelData(decoding: wire, isStream: isStream), again == message else {
            fatalError("ChannelData round trip")
        }
        if isStream, wire.count != 4 + ((message.payload.count + 3) & ~3) { fatalError("padding") }
    }
}

/// Frames from the input appended whole, and in pieces whose sizes the input picks, are the same frames, and
/// together never more bytes than came in.
func checkFramer(_ bytes: [UInt8]) {
    func frames(pieces: Bool) -> (frames: [TURNStreamFrame], failed: Bool) {
        var framer = TURNStreamFramer(maximumFrameSize: 2048)
        var out: [TURNStreamFrame] = []
        var offset = 0
        var piece = 0
        do throws(TURNFramingError) {
            while offset < bytes.count {
                let size = pieces ? Int(bytes[piece % bytes.count] % 61) + 1 : bytes.count
                piece += 1
                let end = min(bytes.count, offset + size)
                try framer.append(bytes[offset..<end])
                offset = end
                while let frame = try framer.nextFrame() { out.append(frame) }
            }
        } catch {
            return (out, true)
        }
        return (out, false)
    }
    let whole = frames(pieces: false)
    let split = frames(pieces: true)
    if whole.failed == split.failed, whole.frames != split.frames { fatalError("framing depends on the reads") }
    if !whole.failed, !split.failed, whole.frames != split.frames { fatalError("frames differ") }
    var total = 0
    for frame in whole.frames {
        switch frame {
        case .stun(let message): total += message.count
        case .channelData(let message): total += 4 + ((message.payload.count + 3) & ~3)
        }
    }
    if total > bytes.count { fatalError("framed more than the input") }
}

/// Feeds pieces of the input to an allocated-or-not TURN client as server messages, with the ID of its latest
/// request patched into STUN-looking pieces so that they reach the response paths, at instants from the input.
func driveTURNClient(_ bytes: [UInt8], reliable: Bool) {
    let configuration = TURNClientConfiguration(
        credentials: TURNCredentials(username: "fuzz", password: "fuzz"), isReliable: reliable,
        maximumPermissions: 4, maximumChannels: 4)
    var client = TURNClient(configuration: configuration, random: CountingGenerator())
    var lastRequestID: [UInt8] = []
    var now = STUNInstant.zero
    var deadline: STUNInstant?
    var sends = 0
    func perform(_ actions: [TURNClientAction]) {
        for action in actions {
            switch action {
            case .send(let wire):
                sends += 1
                if wire.count >= 20, wire[0] & 0xC0 == 0 { lastRequestID = Array(wire[8..<20]) }
            case .armTimer(let at): deadline = at
            case .event: break
            }
        }
    }
    perform(client.start(at: now))
    let peer = STUNTransportAddress(address: .v4(0x0A00_0001), port: 4000)
    var offset = 1
    while offset < bytes.count, sends < 200 {
        let length = Int(bytes[offset])
        let end = min(bytes.count, offset + 1 + length)
        var piece = Array(bytes[(offset + 1)..<end])
        offset = end
        if piece.count >= 20, piece[0] & 0xC0 == 0, lastRequestID.count == 12 {
            piece.replaceSubrange(8..<20, with: lastRequestID)
        }
        now = now + .milliseconds(Int64(length) * 97)
        if let at = deadline, at <= now {
            deadline = nil
            perform(client.timerFired(at: at))
        }
        if reliable {
            perform(client.receive(streamBytes: piece, at: now))
        } else {
            perform(client.receive(piece, at: now))
        }
        switch length % 5 {
        case 0: perform(client.createPermission(for: peer.address, at: now))
        case 1: perform(client.bindChannel(to: peer, at: now))
        case 2: perform(client.send(piece, to: peer, at: now))
        case 3: perform(client.refresh(at: now))
        default: break
        }
    }
    perform(client.close(at: now))
    var rounds = 0
    while let at = deadline, rounds < 1000 {
        deadline = nil
        rounds += 1
        perform(client.timerFired(at: at))
    }
    switch client.state {
    case .closed, .failed: break
    default: fatalError("client did not end after close: \(client.state)")
    }
}
