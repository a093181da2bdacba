/// An audio codec the engine offers or accepts, with the payload type it uses in its own offers.
public struct Codec: Sendable, Hashable {
    /// The payload type used in our offers (answers keep the offerer's numbers, RFC 3264 §6.1).
    public var payloadType: UInt8
    /// The encoding name (`opus`, `PCMU`, `PCMA`, `telephone-event`); matched ignoring case.
    public var encodingName: String {
        didSet { update() }
    }
    /// The RTP clock rate in Hz.
    public var clockRate: UInt32 {
        didSet { update() }
    }
    /// The channel count as signalled in a=rtpmap.
    public var channels: Int {
        didSet { update() }
    }
    /// The fmtp parameter string we send (what we are able to receive), or `nil`.
    public var formatParameters: String? {
        didSet { update() }
    }
    /// What negotiation asks of each codec of ours, worked out when the name or parameters are set.
    private(set) var traits: Traits
    /// What follows the payload type in an a=rtpmap of this codec, as the serializer writes it: ` <name>/<rate>`,
    /// and `/<channels>` when not 1; `nil` when the name holds NUL, CR or LF. Made when the values are set.
    private(set) var rtpMapTail: [UInt8]?
    /// What follows the payload type in an a=fmtp of this codec, as the serializer writes it: ` <parameters>`,
    /// nothing for empty parameters; `nil` without parameters or when they hold NUL, CR or LF. Made when the
    /// values are set.
    private(set) var formatParametersTail: [UInt8]?
    /// For telephone-event, what follows the payload type in an a=fmtp of all our events in their shortest form
    /// (` <events>`, `Traits.eventsText`); `nil` otherwise.
    private(set) var eventsTail: [UInt8]?

    /// The kind of codec and, for telephone-event, its events, from the name and parameters.
    struct Traits: Sendable, Hashable {
        var isTelephoneEvent: Bool
        var isOpus: Bool
        /// telephone-event's events (0-15 without parameters, RFC 4733 §7.1.1); `nil` for another codec or a
        /// malformed list.
        var events: TelephoneEvents?
        /// `events` in its shortest form.
        var eventsText: String?
        /// The encoding name in words, when it has 1 to 16 bytes that a line may carry.
        var nameKey: EncodingNameKey?
        /// Whether the a=rtpmap and a=fmtp of this codec parse back to its values (`OfferTerms`): a non-empty
        /// name of token characters without `/`, a clock rate above 0, 1 to 255 channels, and parameters (when
        /// there are some) that start with no white space and hold no CR or LF.
        var isReadBackAsWritten: Bool

        init(encodingName: String, clockRate: UInt32, channels: Int, formatParameters: String?) {
            isTelephoneEvent = encodingName.equalsIgnoringASCIICase("telephone-event")
            isOpus = encodingName.equalsIgnoringASCIICase("opus")
            events = isTelephoneEvent ? TelephoneEvents(parsing: formatParameters ?? "0-15") : nil
            eventsText = events?.text
            nameKey = EncodingNameKey(encodingName)
            let isName =
                !encodingName.isEmpty && encodingName.utf8.allSatisfy({ $0.isTokenChar && $0 != ASCII.slash })
            let areParameters = formatParameters.map { text in
                text.utf8.first?.isSDPWhitespace != true
                    && !text.utf8.contains(where: { $0 == ASCII.cr || $0 == ASCII.lf })
            }
            isReadBackAsWritten = isName && clockRate > 0 && (1...255).contains(channels) && areParameters != false
        }
    }

    /// - Parameters:
    ///   - payloadType: the payload type of our offers.
    ///   - encodingName: the encoding name.
    ///   - clockRate: the clock rate in Hz.
    ///   - channels: the channel count, 1 by default.
    ///   - formatParameters: the fmtp parameter string, none by default.
    public init(
        payloadType: UInt8, encodingName: String, clockRate: UInt32, channels: Int = 1,
        formatParameters: String? = nil
    ) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
        self.formatParameters = formatParameters
        self.traits = Traits(
            encodingName: encodingName, clockRate: clockRate, channels: channels, formatParameters: formatParameters)
        self.rtpMapTail = Self.rtpMapTail(encodingName, clockRate: clockRate, channels: channels)
        self.formatParametersTail = formatParameters.flatMap(Self.formatParametersTail)
        self.eventsTail = traits.eventsText.flatMap(Self.formatParametersTail)
    }

    private mutating func update() {
        traits = Traits(
            encodingName: encodingName, clockRate: clockRate, channels: channels, formatParameters: formatParameters)
        rtpMapTail = Self.rtpMapTail(encodingName, clockRate: clockRate, channels: channels)
        formatParametersTail = formatParameters.flatMap(Self.formatParametersTail)
        eventsTail = traits.eventsText.flatMap(Self.formatParametersTail)
    }

    private static func formatParametersTail(_ parameters: String) -> [UInt8]? {
        guard !parameters.utf8.contains(where: { $0 == ASCII.nul || $0 == ASCII.cr || $0 == ASCII.lf }) else {
            return nil
        }
        guard !parameters.isEmpty else { return [] }
        return [ASCII.space] + Array(parameters.utf8)
    }

    private static func rtpMapTail(_ name: String, clockRate: UInt32, channels: Int) -> [UInt8]? {
        guard !name.utf8.contains(where: { $0 == ASCII.nul || $0 == ASCII.cr || $0 == ASCII.lf }) else { return nil }
        var tail: [UInt8] = [ASCII.space]
        tail.append(contentsOf: name.utf8)
        tail.append(ASCII.slash)
        tail.appendDecimal(clockRate)
        if channels != 1 {
            tail.append(ASCII.slash)
            tail.appendDecimal(channels)
        }
        return tail
    }

    /// The default `maxplaybackrate` of `opus(payloadType:maxPlaybackRate:)`: 48000, full band. Our decoder
    /// always runs at 48 kHz, so there is nothing to save by asking the sender for less.
    public static let defaultOpusMaxPlaybackRate = 48000

    /// Opus as RFC 7587 §7 requires it: `opus/48000/2` whatever the channel count, and mono receive
    /// parameters `minptime=10;useinbandfec=1;stereo=0;sprop-stereo=0;maxplaybackrate=<rate>` (the form
    /// baresip accepts).
    /// - Parameters:
    ///   - payloadType: the dynamic payload type, 111 by default.
    ///   - maxPlaybackRate: the highest sample rate we play back (8000...48000), 48000 by default.
    public static func opus(payloadType: UInt8 = 111, maxPlaybackRate: Int = defaultOpusMaxPlaybackRate) -> Codec {
        Codec(
            payloadType: payloadType, encodingName: "opus", clockRate: 48000, channels: 2,
            formatParameters: "minptime=10;useinbandfec=1;stereo=0;sprop-stereo=0;maxplaybackrate=\(maxPlaybackRate)")
    }

    /// G.711 mu-law, static payload type 0 (RFC 3551).
    public static let pcmu = Codec(payloadType: 0, encodingName: "PCMU", clockRate: 8000)

    /// G.711 A-law, static payload type 8 (RFC 3551).
    public static let pcma = Codec(payloadType: 8, encodingName: "PCMA", clockRate: 8000)

    /// DTMF events (RFC 4733 §7).
    /// - Parameters:
    ///   - payloadType: the dynamic payload type, 101 by default.
    ///   - clockRate: the clock rate, 8000 by default (match the audio codec's for strict peers).
    ///   - events: the events we receive, `0-16` (DTMF digits and flash) by default.
    public static func telephoneEvent(payloadType: UInt8 = 101, clockRate: UInt32 = 8000, events: String = "0-16")
        -> Codec
    {
        Codec(
            payloadType: payloadType, encodingName: "telephone-event", clockRate: clockRate,
            formatParameters: events)
    }

    /// The codecs offered by default, in preference order: Opus, PCMU, PCMA, telephone-event/8000.
    public static let defaultCodecs: [Codec] = [.opus(), .pcmu, .pcma, .telephoneEvent()]

    /// True for `telephone-event`.
    public var isTelephoneEvent: Bool { traits.isTelephoneEvent }

    /// True for `opus`.
    public var isOpus: Bool { traits.isOpus }

    /// The a=rtpmap for `payloadType`; the channel count is written when it is not 1.
    func rtpMap(payloadType: UInt8) -> RTPMap {
        RTPMap(
            payloadType: payloadType, encodingName: encodingName, clockRate: clockRate,
            channels: channels == 1 ? nil : channels)
    }

    /// True when an offered or answered format is this codec: same encoding name (ignoring case), clock rate
    /// and channel count. Opus is always signalled as two channels (RFC 7587 §7), so its count is not compared.
    func matches(_ map: RTPMap) -> Bool {
        guard map.encodingName.equalsIgnoringASCIICase(encodingName), map.clockRate == clockRate else {
            return false
        }
        return isOpus || map.channelCount == channels
    }
}
