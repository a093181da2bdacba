// How an `OfferAnswerConfiguration` holds its values: in one shared storage object, so that a copy (each call's
// engine takes the provider's configuration) costs one retain instead of retaining every array and string in it.
// The RTP port, the one value that differs from call to call, is kept beside it.

extension OfferAnswerConfiguration {
    /// The values the public properties read and write.
    struct Fields: Sendable, Hashable {
        var codecs: [Codec]
        var packetTime: Int
        var srtpPolicy: SRTPPolicy
        var cryptoSuites: [CryptoSuite]
        var address: String {
            didSet { updateSessionLineText() }
        }
        var isRTCPMuxEnabled: Bool
        var prefersOffererCodecOrder: Bool
        var mediaAttributes: [Attribute]
        var keying: SRTPKeying
        var dtlsFingerprints: [Fingerprint]
        var offersWebRTCProfile: Bool
        var username: String {
            didSet { updateSessionLineText() }
        }
        var sessionName: String {
            didSet { updateSessionLineText() }
        }
        var sessionLineText: SessionLineText?
        /// Whether a first offer is written straight into bytes when it can be (`writeFirstOffer()`).
        var writesOffersAsBytes = true

        init(
            address: String, codecs: [Codec], packetTime: Int, srtpPolicy: SRTPPolicy,
            cryptoSuites: [CryptoSuite], isRTCPMuxEnabled: Bool
        ) {
            self.codecs = codecs
            self.packetTime = packetTime
            self.srtpPolicy = srtpPolicy
            self.cryptoSuites = cryptoSuites
            self.address = address
            self.isRTCPMuxEnabled = isRTCPMuxEnabled
            self.prefersOffererCodecOrder = false
            self.mediaAttributes = []
            self.keying = .sdes
            self.dtlsFingerprints = []
            self.offersWebRTCProfile = false
            self.username = "-"
            self.sessionName = "-"
            updateSessionLineText()
        }

        private mutating func updateSessionLineText() {
            sessionLineText = SessionLineText(username: username, address: address, sessionName: sessionName)
        }
    }

    /// The fields on the heap, shared by copies of the configuration until one of them writes to it.
    typealias Storage = SharedFields<Fields>

    /// The storage as one this value alone holds (copied first when shared): what the setters write to.
    var uniqueStorage: Storage {
        mutating get { Storage.unique(&storage) }
    }

    public static func == (lhs: OfferAnswerConfiguration, rhs: OfferAnswerConfiguration) -> Bool {
        lhs.rtpPort == rhs.rtpPort && (lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rtpPort)
        hasher.combine(storage.fields)
    }
}
