// How a `NegotiatedSession` holds its values: in one shared storage object, so that a copy (the engine keeps the
// session in force, the answer carries it, the session layer and the media layer keep their own) costs one retain
// instead of copying a few hundred bytes and retaining each string and array in them.

extension NegotiatedSession {
    /// The values the public properties read and write.
    struct Fields: Sendable, Hashable {
        var mediaIndex: Int
        /// `codec`.
        var firstCodec: NegotiatedCodec
        /// `codecs` when it is not just `[codec]`; `nil` for the usual single common codec, which then keeps no
        /// array of its own.
        var listedCodecs: [NegotiatedCodec]? = nil
        var telephoneEvent: NegotiatedCodec?
        var remotePacketTime: Int?
        var remoteRTPAddress: TransportAddress?
        var remoteRTCPAddress: TransportAddress?
        var localRTPPort: UInt16
        var localRTCPPort: UInt16?
        var isRTCPMuxed: Bool
        var direction: MediaDirection
        var isLocalHold: Bool
        var isRemoteHold: Bool
        /// What only SRTP and WebRTC sessions have, out of line (`nil` while all of it is at its default).
        var extrasBox: ExtrasBox? = nil

        /// The codec to send with; changing it leaves `codecs` as it was.
        var codec: NegotiatedCodec {
            get { firstCodec }
            set {
                let list = codecs
                firstCodec = newValue
                codecs = list
            }
        }

        /// Every common codec; `[codec]` is kept as `nil`, so that equal sessions have equal fields.
        var codecs: [NegotiatedCodec] {
            get { listedCodecs ?? [firstCodec] }
            set { listedCodecs = newValue.count == 1 && newValue[0] == firstCodec ? nil : newValue }
        }

        /// The SRTP and WebRTC values; setting them all to their defaults lets the box go, so that equal sessions
        /// have equal fields.
        var extras: Extras {
            get {
                guard case .value(let extras)? = extrasBox else { return Extras() }
                return extras
            }
            set { extrasBox = newValue.isEmpty ? nil : .value(newValue) }
        }
    }

    /// The values of an SRTP or WebRTC session: a plain RTP session (most SIP calls) has none of them, and keeps
    /// one `nil` reference for all of them instead of their room.
    struct Extras: Sendable, Hashable {
        var srtp: SRTPParameters?
        var dtls: DTLSParameters?
        var mediaID: String?
        var isBundled = false
        var isReducedSizeRTCP = false
        var midExtensionID: UInt16?

        var isEmpty: Bool {
            srtp == nil && dtls == nil && mediaID == nil && !isBundled && !isReducedSizeRTCP && midExtensionID == nil
        }
    }

    /// `Extras` in a box.
    indirect enum ExtrasBox: Sendable, Hashable {
        case value(Extras)
    }

    /// The fields on the heap, shared by copies of the session until one of them writes to it.
    typealias Storage = SharedFields<Fields>

    init(
        mediaIndex: Int, codec: NegotiatedCodec, codecs: [NegotiatedCodec], telephoneEvent: NegotiatedCodec?,
        remotePacketTime: Int?, remoteRTPAddress: TransportAddress?, remoteRTCPAddress: TransportAddress?,
        localRTPPort: UInt16, localRTCPPort: UInt16?, isRTCPMuxed: Bool, direction: MediaDirection, isLocalHold: Bool,
        isRemoteHold: Bool, srtp: SRTPParameters?
    ) {
        // The fields made once, in their final form (what the `codecs` and `extras` setters would leave), and
        // handed to the storage without a copy.
        storage = Storage(
            Fields(
                mediaIndex: mediaIndex, firstCodec: codec,
                listedCodecs: codecs.count == 1 && codecs[0] == codec ? nil : codecs, telephoneEvent: telephoneEvent,
                remotePacketTime: remotePacketTime, remoteRTPAddress: remoteRTPAddress,
                remoteRTCPAddress: remoteRTCPAddress, localRTPPort: localRTPPort, localRTCPPort: localRTCPPort,
                isRTCPMuxed: isRTCPMuxed, direction: direction, isLocalHold: isLocalHold, isRemoteHold: isRemoteHold,
                extrasBox: srtp.map { .value(Extras(srtp: $0)) }))
    }

    /// The storage as one this value alone holds (copied first when shared): what the setters write to.
    var uniqueStorage: Storage {
        mutating get { Storage.unique(&storage) }
    }

    public static func == (lhs: NegotiatedSession, rhs: NegotiatedSession) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }
}
