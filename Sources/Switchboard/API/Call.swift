public import Foundation

/// A snapshot of one call: what the provider knew when it made the value. Delivered with every call event;
/// `CallProvider.calls` gives the current ones.
public struct Call: Sendable, Identifiable, CustomStringConvertible {
    /// Which side placed the call.
    public enum Direction: String, Sendable, Hashable {
        /// This side was called.
        case incoming
        /// This side called.
        case outgoing
    }

    /// Where the call stands.
    public enum State: String, Sendable, Hashable {
        /// Outgoing: the INVITE is out, nothing but 100 came back.
        case connecting
        /// Outgoing: the callee is alerted (18x). Incoming: the invite waits for an answer.
        case ringing
        /// Incoming: answered, waiting for the ACK.
        case answering
        /// The call is up.
        case connected
        /// Hanging up: a BYE or CANCEL is on its way.
        case ending
        /// Over; `endDetails` says why.
        case ended
    }

    /// The call's UUID, as CallKit's.
    public let uuid: UUID
    /// The SIP Call-ID.
    public var callID: String
    /// The account the call belongs to (its `id`), if any.
    public var account: String?
    /// Which side placed the call.
    public var direction: Direction
    /// Where the call stands.
    public var state: State
    /// This side's address.
    public var localHandle: Handle
    /// The other side's address.
    public var remoteHandle: Handle
    /// The other side's name (P-Asserted-Identity, else From or To display name).
    public var remoteDisplayName: String?
    /// This side put the call on hold.
    public var isOnHold: Bool
    /// The other side put the call on hold.
    public var isRemoteHeld: Bool
    /// This side's audio is muted.
    public var isMuted: Bool
    /// The negotiated audio codec (`opus`, `PCMU`, `PCMA`), once there is one.
    public var codec: String?
    /// Whether the media is encrypted (SRTP).
    public var isSecure: Bool
    /// How the SRTP keys were agreed (`.sdes` in the SDP, `.dtls` on the media path), for a secure call.
    public var srtpKeying: SRTPKeying? = nil
    /// The SRTP crypto suite in force: at once with SDES, once the DTLS handshake gave keys with DTLS-SRTP.
    public var srtpSuite: SRTPSuite? = nil
    /// The transport of the call's signalling (the one its INVITE went out or came in on), once it
    /// connected.
    public var transport: SIPTransportKind? = nil
    /// Media figures, once media runs.
    public var quality: CallQuality? {
        get { occasional.quality }
        set { occasional.quality = newValue }
    }
    /// The candidate pair ICE selected for the media (RFC 8445 §8.1.1), once there is one; `nil` for calls
    /// without ICE.
    public var mediaPath: CallMediaPath? {
        get { occasional.mediaPath }
        set { occasional.mediaPath = newValue }
    }
    /// When the call was placed or the invite arrived.
    public var startedAt: Date
    /// When the call connected.
    public var connectedAt: Date?
    /// When the call ended.
    public var endedAt: Date? {
        get { occasional.endedAt }
        set { occasional.endedAt = newValue }
    }
    /// Why the call ended.
    public var endDetails: CallEndDetails? {
        get { occasional.endDetails }
        set { occasional.endDetails = newValue }
    }

    /// What a call has only once asked for its figures, with ICE, or once over: kept out of line, so that a call
    /// holds one reference (`nil` until one of them is set) instead of their room. The provider keeps a call
    /// for its whole life.
    private var occasionalBox: OccasionalBox?

    /// The values of `occasionalBox`, all `nil` without one.
    private struct Occasional: Sendable {
        var quality: CallQuality?
        var mediaPath: CallMediaPath?
        var endedAt: Date?
        var endDetails: CallEndDetails?

        var isEmpty: Bool { quality == nil && mediaPath == nil && endedAt == nil && endDetails == nil }
    }

    /// `Occasional` in a box (immutable: a change makes a new one, and copies of the call share the old one).
    private indirect enum OccasionalBox: Sendable {
        case value(Occasional)
    }

    private var occasional: Occasional {
        get {
            guard case .value(let occasional)? = occasionalBox else { return Occasional() }
            return occasional
        }
        set { occasionalBox = newValue.isEmpty ? nil : .value(newValue) }
    }

    /// A call with these values.
    init(
        uuid: UUID, callID: String, account: String?, direction: Direction, state: State, localHandle: Handle,
        remoteHandle: Handle, remoteDisplayName: String?, isOnHold: Bool, isRemoteHeld: Bool, isMuted: Bool,
        codec: String?, isSecure: Bool, srtpKeying: SRTPKeying? = nil, srtpSuite: SRTPSuite? = nil,
        transport: SIPTransportKind? = nil, quality: CallQuality?, mediaPath: CallMediaPath? = nil, startedAt: Date,
        connectedAt: Date?, endedAt: Date?, endDetails: CallEndDetails?
    ) {
        self.uuid = uuid
        self.callID = callID
        self.account = account
        self.direction = direction
        self.state = state
        self.localHandle = localHandle
        self.remoteHandle = remoteHandle
        self.remoteDisplayName = remoteDisplayName
        self.isOnHold = isOnHold
        self.isRemoteHeld = isRemoteHeld
        self.isMuted = isMuted
        self.codec = codec
        self.isSecure = isSecure
        self.srtpKeying = srtpKeying
        self.srtpSuite = srtpSuite
        self.transport = transport
        self.startedAt = startedAt
        self.connectedAt = connectedAt
        let occasional = Occasional(quality: quality, mediaPath: mediaPath, endedAt: endedAt, endDetails: endDetails)
        self.occasionalBox = occasional.isEmpty ? nil : .value(occasional)
    }

    public var id: UUID { uuid }

    /// Seconds between connection and the end (or now).
    public var duration: TimeInterval {
        guard let connectedAt else { return 0 }
        return (endedAt ?? Date()).timeIntervalSince(connectedAt)
    }

    public var description: String {
        "\(direction) call \(uuid) \(remoteHandle) \(state)\(endDetails.map { " (\($0))" } ?? "")"
    }
}

/// Media quality of a call (RFC 3550 statistics and an E-model estimate).
public struct CallQuality: Sendable, Hashable {
    /// RTP packets sent.
    public var packetsSent: Int
    /// RTP packets received.
    public var packetsReceived: Int
    /// Packets lost (expected minus received, RFC 3550 A.3).
    public var packetsLost: Int
    /// Lost over expected, 0...1.
    public var lossFraction: Double
    /// Interarrival jitter in milliseconds (RFC 3550 A.8).
    public var jitterMilliseconds: Double
    /// Round-trip time from RTCP, when known.
    public var roundTripMilliseconds: Double?
    /// Mean opinion score estimate (ITU-T G.107 E-model), 1...4.5.
    public var meanOpinionScore: Double

    /// Figures from their parts.
    public init(
        packetsSent: Int = 0, packetsReceived: Int = 0, packetsLost: Int = 0, lossFraction: Double = 0,
        jitterMilliseconds: Double = 0, roundTripMilliseconds: Double? = nil, meanOpinionScore: Double = 0
    ) {
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.lossFraction = lossFraction
        self.jitterMilliseconds = jitterMilliseconds
        self.roundTripMilliseconds = roundTripMilliseconds
        self.meanOpinionScore = meanOpinionScore
    }
}

/// An incoming INVITE waiting for the app: answer it with an `AnswerCallAction` or reject it with an
/// `EndCallAction` (its `rejectStatus`) through the `CallController`, using `callUUID`.
public struct CallInvite: Sendable, CustomStringConvertible {
    /// The UUID the call has from now on.
    public let callUUID: UUID
    /// The SIP Call-ID.
    public var callID: String
    /// The caller.
    public var from: Handle
    /// The caller's name (P-Asserted-Identity, else From's display name).
    public var callerName: String?
    /// The address called.
    public var to: Handle
    /// The account the call came in on, if it matched one.
    public var account: String?
    /// The codecs the caller offered, in its order (`opus`, `PCMU`, ...); empty for an INVITE without SDP.
    public var offeredCodecs: [String] {
        get { offeredCodecsSet ?? source?.offeredCodecs ?? [] }
        set { offeredCodecsSet = newValue }
    }
    /// Whether the offer asks for SRTP.
    public var offersSRTP: Bool {
        get { offersSRTPSet ?? source?.offersSRTP ?? false }
        set { offersSRTPSet = newValue }
    }
    /// Every header field of the INVITE, in order (Authorization redacted).
    public var headers: [(name: String, value: String)] {
        get { headersSet ?? source?.headers ?? [] }
        set { headersSet = newValue }
    }

    /// The INVITE the three above are read from when asked: most apps answer without reading them, and
    /// copying every header field and parsing the offer again for each call is work a busy answerer
    /// would do for nothing.
    var source: InviteSource?
    private var offeredCodecsSet: [String]?
    private var offersSRTPSet: Bool?
    private var headersSet: [(name: String, value: String)]?

    init(
        callUUID: UUID, callID: String, from: Handle, callerName: String?, to: Handle, account: String?,
        offeredCodecs: [String], offersSRTP: Bool, headers: [(name: String, value: String)]
    ) {
        self.init(callUUID: callUUID, callID: callID, from: from, callerName: callerName, to: to, account: account)
        offeredCodecsSet = offeredCodecs
        offersSRTPSet = offersSRTP
        headersSet = headers
    }

    init(
        callUUID: UUID, callID: String, from: Handle, callerName: String?, to: Handle, account: String?,
        source: InviteSource? = nil
    ) {
        self.callUUID = callUUID
        self.callID = callID
        self.from = from
        self.callerName = callerName
        self.to = to
        self.account = account
        self.source = source
    }

    /// The first value of a header field, by name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var description: String { "invite \(callUUID) from \(from) call-id=\(callID)" }
}

/// An incoming call that ended before it was answered: the caller cancelled, another device answered or
/// declined, or nobody answered in time.
public struct CancelledCallInvite: Sendable, CustomStringConvertible {
    /// The invite's call UUID.
    public let callUUID: UUID
    /// The SIP Call-ID.
    public var callID: String
    /// The caller.
    public var from: Handle
    /// Why: `unanswered` (the caller gave up), `answeredElsewhere` or `declinedElsewhere` (RFC 3326).
    public var reason: CallEndedReason
    /// The SIP facts.
    public var details: CallEndDetails

    public var description: String { "cancelled invite \(callUUID) from \(from): \(reason)" }
}
