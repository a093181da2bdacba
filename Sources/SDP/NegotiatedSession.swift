/// The outcome of an offer/answer exchange for the audio stream: what the media layer needs to send and
/// receive. "Send" and "receive" are from our side.
public struct NegotiatedSession: Sendable, Hashable {
    /// A codec both sides use, with the payload type numbers of each direction.
    public struct NegotiatedCodec: Sendable, Hashable {
        /// The encoding name as we configured it (`opus`, `PCMU`, ...).
        public var encodingName: String
        /// The clock rate in Hz.
        public var clockRate: UInt32
        /// The channel count as signalled.
        public var channels: Int
        /// The payload type to put in packets we send: the number the other side declared.
        public var sendPayloadType: UInt8
        /// The payload type of packets we receive: the number we declared.
        public var receivePayloadType: UInt8
        /// The other side's fmtp: how it wants to receive (what our encoder must respect).
        public var sendFormatParameters: String?
        /// Our fmtp: how we want to receive.
        public var receiveFormatParameters: String?
    }

    /// SDES-keyed SRTP (RFC 4568) for both directions.
    public struct SRTPParameters: Sendable, Hashable {
        /// The negotiated crypto suite.
        public var suite: CryptoSuite
        /// The tag of the accepted a=crypto line.
        public var tag: UInt32
        /// Our master key and salt: protects what we send.
        public var localKeySalt: [UInt8]
        /// The other side's master key and salt: unprotects what we receive.
        public var remoteKeySalt: [UInt8]
        /// The other side's key lifetime, when it gave one.
        public var remoteLifetime: SRTPKeyParameters.Lifetime?
        /// The other side's MKI, when it uses one (its packets then carry it).
        public var remoteMKI: SRTPKeyParameters.MasterKeyIdentifier?
    }

    /// DTLS-keyed SRTP (RFC 5763, RFC 5764): who starts the handshake, what the peer's certificate must match,
    /// and which association the session names (RFC 8842).
    public struct DTLSParameters: Sendable, Hashable {
        /// Our role (RFC 4145, RFC 5763 §5): `.active` (the DTLS client, which sends the ClientHello) or
        /// `.passive` (the server).
        public var setup: SetupRole
        /// The other side's `a=fingerprint` values (media level, else session level): its certificate must
        /// match one (RFC 8122 §5).
        public var remoteFingerprints: [Fingerprint]
        /// Our `a=tls-id` (RFC 8842 §4): a new one names a new association.
        public var localTLSID: TLSID
        /// The other side's `a=tls-id`, when it gave one.
        public var remoteTLSID: TLSID?

        /// - Parameters:
        ///   - setup: our role, `.active` or `.passive`.
        ///   - remoteFingerprints: the other side's fingerprints.
        ///   - localTLSID: our tls-id.
        ///   - remoteTLSID: theirs.
        public init(setup: SetupRole, remoteFingerprints: [Fingerprint], localTLSID: TLSID, remoteTLSID: TLSID?) {
            self.setup = setup
            self.remoteFingerprints = remoteFingerprints
            self.localTLSID = localTLSID
            self.remoteTLSID = remoteTLSID
        }
    }

    /// A host and port to send to.
    public struct TransportAddress: Sendable, Hashable, CustomStringConvertible {
        /// The address or host name, as written in the SDP.
        public var host: String
        /// The port.
        public var port: UInt16

        public var description: String { host.utf8.contains(ASCII.colon) ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The values, shared with copies (see `NegotiatedSession+Storage.swift`).
    var storage: Storage

    /// The index of the audio m= line in the offer and answer.
    public var mediaIndex: Int {
        get { storage.fields.mediaIndex }
        _modify { yield &uniqueStorage.fields.mediaIndex }
    }
    /// The codec to send with: the first common one.
    public var codec: NegotiatedCodec {
        get { storage.fields.codec }
        _modify { yield &uniqueStorage.fields.codec }
    }
    /// Every common codec, `codec` first: the other side may send any of them.
    public var codecs: [NegotiatedCodec] {
        get { storage.fields.codecs }
        _modify { yield &uniqueStorage.fields.codecs }
    }
    /// telephone-event (RFC 4733), when both sides support it: the entry whose clock rate is the codec's,
    /// else the first.
    public var telephoneEvent: NegotiatedCodec? {
        get { storage.fields.telephoneEvent }
        _modify { yield &uniqueStorage.fields.telephoneEvent }
    }
    /// The other side's a=ptime in milliseconds: how it wants to receive.
    public var remotePacketTime: Int? {
        get { storage.fields.remotePacketTime }
        _modify { yield &uniqueStorage.fields.remotePacketTime }
    }
    /// Where to send RTP; `nil` when the other side gave no address (RFC 2543 hold with 0.0.0.0).
    public var remoteRTPAddress: TransportAddress? {
        get { storage.fields.remoteRTPAddress }
        _modify { yield &uniqueStorage.fields.remoteRTPAddress }
    }
    /// Where to send RTCP: the RTP address with rtcp-mux, else a=rtcp (RFC 3605), else the RTP port + 1.
    public var remoteRTCPAddress: TransportAddress? {
        get { storage.fields.remoteRTCPAddress }
        _modify { yield &uniqueStorage.fields.remoteRTCPAddress }
    }
    /// Our RTP port.
    public var localRTPPort: UInt16 {
        get { storage.fields.localRTPPort }
        _modify { yield &uniqueStorage.fields.localRTPPort }
    }
    /// Our RTCP port: the RTP port with rtcp-mux, else the next one (`nil` when there is none).
    public var localRTCPPort: UInt16? {
        get { storage.fields.localRTCPPort }
        _modify { yield &uniqueStorage.fields.localRTCPPort }
    }
    /// True when RTP and RTCP share one port (RFC 5761).
    public var isRTCPMuxed: Bool {
        get { storage.fields.isRTCPMuxed }
        _modify { yield &uniqueStorage.fields.isRTCPMuxed }
    }
    /// The direction from our side: `sendonly` means we send and do not receive.
    public var direction: MediaDirection {
        get { storage.fields.direction }
        _modify { yield &uniqueStorage.fields.direction }
    }
    /// True when we hold the call (we sent sendonly or inactive).
    public var isLocalHold: Bool {
        get { storage.fields.isLocalHold }
        _modify { yield &uniqueStorage.fields.isLocalHold }
    }
    /// True when the other side holds the call (it offered sendonly, inactive or a 0.0.0.0 address).
    public var isRemoteHold: Bool {
        get { storage.fields.isRemoteHold }
        _modify { yield &uniqueStorage.fields.isRemoteHold }
    }
    /// SDES SRTP keys and suite; `nil` for plain RTP and for DTLS-SRTP.
    public var srtp: SRTPParameters? {
        get { storage.fields.extras.srtp }
        _modify { yield &uniqueStorage.fields.extras.srtp }
    }
    /// DTLS-SRTP (RFC 5763): the keys come from the handshake on the media path; `nil` otherwise.
    public var dtls: DTLSParameters? {
        get { storage.fields.extras.dtls }
        _modify { yield &uniqueStorage.fields.extras.dtls }
    }
    /// The audio stream's `a=mid` (RFC 5888) in a DTLS-SRTP session (the WebRTC profile), when the offer gave one.
    public var mediaID: String? {
        get { storage.fields.extras.mediaID }
        _modify { yield &uniqueStorage.fields.extras.mediaID }
    }
    /// True when both sides put the audio stream in an `a=group:BUNDLE` (RFC 9143).
    public var isBundled: Bool {
        get { storage.fields.extras.isBundled }
        _modify { yield &uniqueStorage.fields.extras.isBundled }
    }
    /// True when both sides allow reduced-size RTCP (RFC 5506 `a=rtcp-rsize`).
    public var isReducedSizeRTCP: Bool {
        get { storage.fields.extras.isReducedSizeRTCP }
        _modify { yield &uniqueStorage.fields.extras.isReducedSizeRTCP }
    }
    /// The identifier of the MID RTP header extension (RFC 9143 §14, `a=extmap`) when both sides use it.
    public var midExtensionID: UInt16? {
        get { storage.fields.extras.midExtensionID }
        _modify { yield &uniqueStorage.fields.extras.midExtensionID }
    }

    /// Whether the media is SRTP, keyed either way.
    public var isSecure: Bool { srtp != nil || dtls != nil }

    /// How the keys are agreed, for SRTP; `nil` for plain RTP.
    public var keying: SRTPKeying? {
        if dtls != nil { return .dtls }
        return srtp == nil ? nil : .sdes
    }
}
