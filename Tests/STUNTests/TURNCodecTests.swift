import STUN
import Testing

/// TURN's methods, attributes and error codes on the STUN codec (RFC 8656 §18, §19).
@Suite("TURN attributes")
struct TURNCodecTests {
    static let id = STUNTransactionID(high: 0x0102_0304, low: 0x0506_0708_090A_0B0C)
    static let peer = STUNTransportAddress(address: .v4(0xC633_6407), port: 49_152)
    static let peer6 = STUNTransportAddress(address: .v6(high: 0x2001_0DB8_0000_0000, low: 1), port: 5004)

    @Test func everyTURNAttributeRoundTripsThroughTheTypedViews() throws {
        let channel = try #require(TURNChannelNumber(rawValue: 0x4001))
        let message = STUNMessage(
            .request, .allocate, transactionID: Self.id,
            attributes: [
                .channelNumber(channel), .lifetime(seconds: 3600), .xorPeerAddress(Self.peer, transactionID: Self.id),
                .xorPeerAddress(Self.peer6, transactionID: Self.id), .data([1, 2, 3, 4, 5]),
                .xorRelayedAddress(Self.peer6, transactionID: Self.id), .requestedAddressFamily(.ipv6),
                .evenPort(reserveNext: true), .requestedTransport(.udp), .dontFragment,
                .reservationToken(0x0102_0304_0506_0708), .additionalAddressFamily(.ipv6),
                .addressErrorCode(.ipv6, .addressFamilyNotSupported, reason: "no v6"),
                .icmp(TURNICMP(type: 3, code: 4, errorData: 1400)),
            ])
        let decoded = try STUNReceivedMessage(decoding: message.encoded(fingerprint: true)).message
        #expect(decoded.unknownAttributes == nil)
        #expect(decoded.channelNumber == channel)
        #expect(decoded.lifetimeSeconds == 3600)
        #expect(decoded.xorPeerAddress == Self.peer)
        #expect(decoded.xorPeerAddresses == [Self.peer, Self.peer6])
        #expect(decoded.data == [1, 2, 3, 4, 5])
        #expect(decoded.xorRelayedAddress == Self.peer6)
        #expect(decoded.requestedAddressFamily == .ipv6)
        #expect(decoded.evenPortReservesNext == true)
        #expect(decoded.requestedTransport == .udp)
        #expect(decoded.hasDontFragment)
        #expect(decoded.reservationToken == 0x0102_0304_0506_0708)
        #expect(decoded.additionalAddressFamily == .ipv6)
        let addressError = try #require(decoded.addressErrorCode)
        #expect(addressError.family == .ipv6 && addressError.code == .addressFamilyNotSupported)
        #expect(addressError.reason == "no v6")
        #expect(decoded.icmp == TURNICMP(type: 3, code: 4, errorData: 1400))
    }

    @Test func turnAttributesAreUnderstoodAndNamed() throws {
        #expect(STUNAttributeType.xorRelayedAddress.description == "XOR-RELAYED-ADDRESS")
        #expect(STUNAttributeType.icmp.description == "ICMP")
        #expect(STUNAttributeType.requestedTransport.isUnderstood)
        let message = STUNMessage(.request, .allocate, transactionID: Self.id, attributes: [.requestedTransport(.udp)])
        let received = try STUNReceivedMessage(decoding: message.encoded())
        #expect(received.unknownRequiredAttributes.isEmpty)
    }

    @Test(arguments: [
        STUNAttribute(type: .lifetime, value: [0, 0, 1]), STUNAttribute(type: .channelNumber, value: [0x40, 0]),
        STUNAttribute(type: .xorPeerAddress, value: [0, 3, 0, 0]), STUNAttribute(type: .evenPort, value: []),
        STUNAttribute(type: .dontFragment, value: [0]), STUNAttribute(type: .reservationToken, value: [1, 2]),
        STUNAttribute(type: .requestedAddressFamily, value: [9, 0, 0, 0]),
        STUNAttribute(type: .addressErrorCode, value: [1, 0]), STUNAttribute(type: .icmp, value: [0, 0, 0, 0]),
    ])
    func malformedTURNAttributesAreTypedErrors(_ attribute: STUNAttribute) {
        let bytes = STUNMessage(.request, .allocate, transactionID: Self.id, attributes: [attribute]).encoded()
        #expect(throws: STUNDecodingError.self) { try STUNReceivedMessage(decoding: bytes) }
        do {
            _ = try STUNReceivedMessage(decoding: bytes)
        } catch {
            #expect(error.code == .invalidAttribute)
        }
    }

    @Test func turnErrorCodesAndMethods() {
        let codes: [STUNErrorCode] = [
            .forbidden, .allocationMismatch, .staleNonce, .addressFamilyNotSupported, .wrongCredentials,
            .unsupportedTransportProtocol, .peerAddressFamilyMismatch, .allocationQuotaReached, .insufficientCapacity,
        ]
        #expect(codes.map(\.rawValue) == [403, 437, 438, 440, 441, 442, 443, 486, 508])
        let methods: [STUNMethod] = [.allocate, .refresh, .send, .data, .createPermission, .channelBind]
        #expect(methods.map(\.rawValue) == [3, 4, 6, 7, 8, 9])
        #expect(
            methods.map(\.description) == ["Allocate", "Refresh", "Send", "Data", "CreatePermission", "ChannelBind"])
    }

    @Test func anAllocateSuccessResponseHasTheRFCTypeBits() throws {
        let bytes = STUNMessage(.successResponse, .allocate, transactionID: Self.id).encoded()
        #expect(bytes[0] == 0x01 && bytes[1] == 0x03)
        let indication = STUNMessage(.indication, .send, transactionID: Self.id).encoded()
        #expect(indication[0] == 0x00 && indication[1] == 0x16)
    }
}

/// ChannelData messages (RFC 8656 §12.4, §12.5).
@Suite("TURN ChannelData")
struct TURNChannelDataTests {
    @Test func channelNumbersAreLimitedToTheClientRange() {
        #expect(TURNChannelNumber(rawValue: 0x3FFF) == nil)
        #expect(TURNChannelNumber(rawValue: 0x4000) == .first)
        #expect(TURNChannelNumber(rawValue: 0x4FFF) == .last)
        #expect(TURNChannelNumber(rawValue: 0x5000) == nil)
        #expect(TURNChannelNumber.first.description == "0x4000")
    }

    @Test func udpIsNotPaddedAndStreamsAre() throws {
        let message = TURNChannelData(channel: .first, payload: [0xAA, 0xBB, 0xCC, 0xDD, 0xEE])
        #expect(message.encoded() == [0x40, 0x00, 0x00, 0x05, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE])
        #expect(message.encoded(isStream: true) == [0x40, 0x00, 0x00, 0x05, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0, 0, 0])
        #expect(try TURNChannelData(decoding: message.encoded()) == message)
        #expect(try TURNChannelData(decoding: message.encoded(isStream: true), isStream: true) == message)
        // Over UDP whatever follows the length (padding) is ignored.
        #expect(try TURNChannelData(decoding: message.encoded(isStream: true)) == message)
        let empty = TURNChannelData(channel: .last, payload: [])
        #expect(try TURNChannelData(decoding: empty.encoded(isStream: true), isStream: true) == empty)
    }

    @Test(arguments: [
        ([UInt8](), TURNChannelDataError.Code.tooShort), ([0x40, 0x00, 0x00], .tooShort),
        ([0x50, 0x00, 0x00, 0x00], .channelOutOfRange), ([0x3F, 0xFF, 0x00, 0x00], .channelOutOfRange),
        ([0x40, 0x00, 0x00, 0x05, 1, 2, 3, 4], .truncated), ([0x40, 0x00, 0xFF, 0xFF], .truncated),
    ])
    func malformedChannelDataIsATypedError(_ bytes: [UInt8], _ code: TURNChannelDataError.Code) {
        do {
            _ = try TURNChannelData(decoding: bytes)
            Issue.record("decoded \(bytes)")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test func overAStreamTheFrameMustBeThePaddedLength() {
        // Five bytes of payload need three of padding over a stream; two or four are wrong.
        for extra in [2, 4] {
            let bytes: [UInt8] = [0x40, 0x01, 0x00, 0x05] + [UInt8](repeating: 7, count: 5 + extra)
            do {
                _ = try TURNChannelData(decoding: bytes, isStream: true)
                Issue.record("decoded \(extra) bytes of padding")
            } catch {
                #expect(error.code == .badPadding)
            }
        }
    }
}
