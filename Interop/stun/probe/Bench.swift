import STUN

/// `stun-probe bench [ITERATIONS]`: the cost of carrying a 160-byte payload (20 ms of G.711) through the relay
/// as ChannelData and as a Send indication, encode plus decode, in nanoseconds per packet. Run it from a
/// release build; it is a figure for the notes, not a test.
func runBench(_ arguments: [String]) -> Int32 {
    let iterations = arguments.first.flatMap { Int($0) } ?? 1_000_000
    let payload = (0..<160).map { UInt8(truncatingIfNeeded: $0) }
    let peer = STUNTransportAddress(address: .v4(0xC633_6407), port: 49_152)
    guard let channel = TURNChannelNumber(rawValue: 0x4000) else { return 1 }
    var generator = SystemRandomNumberGenerator()
    var checksum = 0

    func time(_ name: String, _ body: () -> Int) {
        _ = body()  // warm-up
        let start = now()
        for _ in 0..<iterations { checksum &+= body() }
        let elapsed = now().nanoseconds - start.nanoseconds
        let perPacket = Double(elapsed) / Double(iterations)
        print("\(name): \(Int(perPacket.rounded())) ns per packet (\(iterations) packets)")
    }

    time("ChannelData encode+decode (UDP, 164 bytes)") {
        let wire = TURNChannelData(channel: channel, payload: payload).encoded()
        guard let decoded = try? TURNChannelData(decoding: wire) else { return 0 }
        return decoded.payload.count + Int(decoded.channel.rawValue)
    }
    let id = STUNTransactionID.random(using: &generator)
    time("Send indication encode+decode (UDP, 196 bytes)") {
        let wire = STUNMessage(
            .indication, .send, transactionID: id,
            attributes: [.xorPeerAddress(peer, transactionID: id), .data(payload)]
        ).encoded()
        guard let decoded = try? STUNReceivedMessage(decoding: wire), let data = decoded.message.data,
            let address = decoded.message.xorPeerAddress
        else { return 0 }
        return data.count + Int(address.port)
    }
    time("Send indication encode+decode with a fresh transaction ID") {
        let id = STUNTransactionID.random(using: &generator)
        let wire = STUNMessage(
            .indication, .send, transactionID: id,
            attributes: [.xorPeerAddress(peer, transactionID: id), .data(payload)]
        ).encoded()
        guard let decoded = try? STUNReceivedMessage(decoding: wire), let data = decoded.message.data,
            let address = decoded.message.xorPeerAddress
        else { return 0 }
        return data.count + Int(address.port)
    }
    print("checksum \(checksum)")
    return 0
}
