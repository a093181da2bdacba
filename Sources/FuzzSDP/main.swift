import SDP

// libFuzzer entry point over the SDP parser, every typed attribute view, the serializer and the offer/answer
// engine; it also checks that the scanned (bytes) and model paths of parsing and answering agree. Built only
// with `--sanitize=fuzzer` (see scripts/fuzz sdp); a plain build makes an empty program.

/// A fixed "random" word: the fuzzer wants determinism, not entropy.
struct FixedRandom: RandomNumberGenerator, Sendable {
    mutating func next() -> UInt64 { 0x0123_4567_89AB_CDEF }
}

/// Key material that only depends on the number of calls.
struct CountingKeys: SRTPKeySource {
    var calls: UInt8 = 0

    mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        calls &+= 1
        return (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ calls }
    }
}

/// Limits for parsing what we wrote: U+FFFD replacing a byte of invalid UTF-8 takes three bytes.
let reparseLimits = SDPLimits(maximumSize: 4 * 65_536, maximumLineLength: 4 * 4096)

/// Reads every typed view; errors are fine, traps are not.
func touchTypedViews(_ container: some SDPAttributeContainer) {
    _ = try? container.rtpMaps
    _ = try? container.formatParameters.map(\.parameters)
    _ = try? container.packetTime
    _ = try? container.maximumPacketTime
    _ = container.direction
    _ = try? container.rtcp?.attributeValue
    _ = container.isRTCPMuxed
    _ = try? container.cryptos.map { crypto in (crypto.attributeValue, crypto.keyParameters.map(\.keySaltBytes)) }
    _ = try? container.ssrcs.map(\.attributeValue)
    _ = try? container.mid
    _ = try? container.setup
    _ = try? container.fingerprints.map(\.attributeValue)
}

/// Our own output must always parse.
func mustParse(_ description: SessionDescription, _ what: String) {
    guard (try? SessionDescription(parsing: description.serialized(), limits: reparseLimits)) != nil else {
        fatalError("\(what) does not parse:\n\(description)")
    }
}

/// A certificate fingerprint for DTLS-SRTP offers and answers.
let dtlsFingerprint = Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0x5A, count: 32))

/// Answers `offer` and takes it as an answer to our offer, under `policy` (with DTLS-SRTP and the WebRTC
/// profile when `webRTC`).
func negotiate(_ offer: SessionDescription, policy: SRTPPolicy, webRTC: Bool = false) {
    var configuration = OfferAnswerConfiguration(
        address: "192.0.2.1", rtpPort: 40000,
        codecs: Codec.defaultCodecs + [.telephoneEvent(payloadType: 102, clockRate: 48000)], srtpPolicy: policy)
    if webRTC {
        configuration.dtlsFingerprints = [dtlsFingerprint]
        configuration.keying = .dtls
        configuration.offersWebRTCProfile = true
    }
    var answerer = OfferAnswer(configuration: configuration, random: FixedRandom(), keySource: CountingKeys())
    if (try? answerer.receiveOffer(offer)) != nil {
        guard let answer = try? answerer.makeAnswer() else { fatalError("an accepted offer was not answered") }
        mustParse(answer.sessionDescription, "answer")
        if let reOffer = try? answerer.makeHoldOffer() {
            mustParse(reOffer, "re-offer")
            guard reOffer.media.count == answer.sessionDescription.media.count else {
                fatalError("the re-offer changed the m= line count")
            }
            _ = try? answerer.receiveAnswer(offer)
        }
    }
    var offerer = OfferAnswer(configuration: configuration, random: FixedRandom(), keySource: CountingKeys())
    if let ours = try? offerer.makeOffer() {
        mustParse(ours, "offer")
        _ = try? offerer.receiveAnswer(offer)
        _ = try? offerer.receiveAnswer(offer)
    }
}

/// Parsing through the scan and through the model alone gives the same description, or the same error.
func checkParsePathsAgree(_ bytes: [UInt8]) {
    let scanned = Result { () throws(SDPError) in try SessionDescription(parsing: bytes) }
    let model = Result { () throws(SDPError) in try SessionDescription(parsingModel: bytes) }
    switch (scanned, model) {
    case (.success(let a), .success(let b)):
        guard a == b, b == a, a.hashValue == b.hashValue, a.serialized() == b.serialized() else {
            fatalError("the scanned description differs from the parsed one")
        }
    case (.failure(let a), .failure(let b)):
        guard a == b else { fatalError("the scan and the parser fail differently: \(a) / \(b)") }
    default:
        fatalError("the scan and the parser disagree on whether the description parses")
    }
}

/// Every typed value of a description (its model, whether it was kept as bytes or not).
func dump(_ d: SessionDescription) -> String {
    let values: [Any] = [
        d.origin, d.sessionName, d.information as Any, d.uri as Any, d.emails, d.phones, d.connection as Any,
        d.bandwidths, d.timing, d.timeZones as Any, d.key as Any, d.attributes, d.media, d.unknownLines,
    ]
    return values.map { String(reflecting: $0) }.joined(separator: "|")
}

/// One engine's answer to `offer`, then its answer to the same offer again after a hold re-offer (the second
/// answer is compared with the last description sent).
func answers(_ offer: SessionDescription, _ configuration: OfferAnswerConfiguration) -> [String] {
    var engine = OfferAnswer(configuration: configuration, random: FixedRandom(), keySource: CountingKeys())
    func answer() -> String {
        do {
            try engine.receiveOffer(offer)
            let made = try engine.makeAnswer()
            let description = made.sessionDescription
            return "\(description)|\(dump(description))|\(made.session)|\(description.hashValue)"
        } catch {
            engine.cancelPendingOffer()
            return "\(error)"
        }
    }
    var outcomes = [answer()]
    if (try? engine.makeHoldOffer()) != nil {
        if (try? engine.receiveAnswer(offer)) == nil { engine.cancelPendingOffer() }
        outcomes.append(answer())
        outcomes.append(answer())
    }
    outcomes.append("\(engine.localDescription.map(dump) ?? "-")|\(String(describing: engine.session))")
    return outcomes
}

/// An offer answered from its bytes and from its model gives the same answers, sessions and errors.
func checkAnswerPathsAgree(_ offer: SessionDescription) {
    guard offer.isKeptAsBytes else { return }
    let model = offer.withModel
    for policy in SRTPPolicy.allCases {
        for prefersOffererOrder in [false, true] {
            var configuration = OfferAnswerConfiguration(
                address: "192.0.2.1", rtpPort: 40000,
                codecs: Codec.defaultCodecs + [.telephoneEvent(payloadType: 102, clockRate: 48000)], srtpPolicy: policy)
            configuration.prefersOffererCodecOrder = prefersOffererOrder
            guard answers(offer, configuration) == answers(model, configuration) else {
                fatalError("the answer from the bytes differs from the answer from the model")
            }
            // A side with a certificate answers offers with a=fingerprint from the model, others from the bytes.
            configuration.dtlsFingerprints = [dtlsFingerprint]
            guard answers(offer, configuration) == answers(model, configuration) else {
                fatalError("with a certificate, the answer from the bytes differs from the one from the model")
            }
        }
    }
}

/// An answer to our offer taken from its bytes and from its model gives the same session or the same error.
func checkNegotiatePathsAgree(_ answer: SessionDescription) {
    guard answer.isKeptAsBytes else { return }
    let model = answer.withModel
    for policy in SRTPPolicy.allCases {
        let configuration = OfferAnswerConfiguration(
            address: "192.0.2.1", rtpPort: 40000,
            codecs: Codec.defaultCodecs + [.telephoneEvent(payloadType: 102, clockRate: 48000)], srtpPolicy: policy)
        var fromBytes = OfferAnswer(configuration: configuration, random: FixedRandom(), keySource: CountingKeys())
        var fromModel = OfferAnswer(configuration: configuration, random: FixedRandom(), keySource: CountingKeys())
        guard (try? fromBytes.makeOffer()) != nil, (try? fromModel.makeOffer()) != nil else { continue }
        let a = Result { () throws(SDPError) in try fromBytes.receiveAnswer(answer) }
        let b = Result { () throws(SDPError) in try fromModel.receiveAnswer(model) }
        switch (a, b) {
        case (.success(let a), .success(let b)):
            guard a == b else { fatalError("the answer's bytes negotiate another session than its model") }
        case (.failure(let a), .failure(let b)):
            guard a == b else { fatalError("the answer's bytes and model fail differently: \(a) / \(b)") }
        default:
            fatalError("the answer's bytes and model disagree on whether it is usable")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkParsePathsAgree(bytes)
    guard let session = try? SessionDescription(parsing: bytes) else { return 0 }
    checkAnswerPathsAgree(session)
    checkNegotiatePathsAgree(session)

    touchTypedViews(session)
    for media in session.media {
        touchTypedViews(media)
        _ = try? media.payloadTypes
    }
    let wire = session.serialized()
    guard let again = try? SessionDescription(parsing: wire, limits: reparseLimits) else {
        fatalError("round trip failed to parse")
    }
    if again != session { fatalError("round trip changed the description") }
    if again.serialized() != wire { fatalError("second serialization differs") }

    for policy in SRTPPolicy.allCases { negotiate(session, policy: policy) }
    negotiate(session, policy: .optional, webRTC: true)
    return 0
}
