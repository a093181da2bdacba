import Foundation
import SDP
import SIPMessage

/// What an incoming INVITE tells the app: the call's first snapshot and the invite handed to the delegate
/// (caller from P-Asserted-Identity, else From; the codecs and SRTP it offers and its header fields, with
/// credentials redacted, read when the app asks). Pure.
struct IncomingInvite {
    let call: Call
    let invite: CallInvite

    /// - Parameters:
    ///   - request: the INVITE.
    ///   - callID: its Call-ID as the session keeps it, so that the call shares that copy; `nil` reads it.
    ///   - offer: its SDP offer, when it has one.
    ///   - uuid: the UUID the call gets.
    ///   - account: the account the INVITE is for, if one matched.
    ///   - date: when it arrived.
    init(
        _ request: SIPRequest, callID: String? = nil, offer: SessionDescription?, uuid: UUID, account: String?,
        date: Date
    ) {
        let from = try? request.from
        let to = try? request.to
        let identity = (try? request.pAssertedIdentity)?.first
        let remoteURI = identity?.uri ?? from?.uri
        let remote = remoteURI.map(Handle.init(uri:)) ?? Handle(type: .generic, value: "anonymous")
        let local = to.map { Handle(uri: $0.uri) } ?? Handle(type: .generic, value: "")
        let callID = callID ?? (try? request.callID) ?? ""
        call = Call(
            uuid: uuid, callID: callID, account: account, direction: .incoming, state: .ringing,
            localHandle: local, remoteHandle: remote, remoteDisplayName: identity?.displayName ?? from?.displayName,
            isOnHold: false, isRemoteHeld: false, isMuted: false, codec: nil, isSecure: false, quality: nil,
            startedAt: date, connectedAt: nil, endedAt: nil, endDetails: nil)
        invite = CallInvite(
            callUUID: uuid, callID: callID, from: remote, callerName: call.remoteDisplayName, to: local,
            account: account, source: InviteSource(request: request, hasOffer: offer != nil))
    }
}

/// What a `CallInvite` reads from its INVITE on demand: the offered codecs, SRTP, the header fields.
struct InviteSource: Sendable {
    let request: SIPRequest
    let hasOffer: Bool

    var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            let redacted = field.name == .authorization || field.name == .proxyAuthorization
            headers.append((field.name.description, redacted ? "<redacted>" : field.value))
        }
        return headers
    }

    /// The offer's first audio section, read from a copy with storage of its own: the session keeps the
    /// offer as bytes for the whole call, and reading the typed lines of the shared copy would keep them
    /// beside the bytes.
    private var audio: MediaDescription? {
        guard hasOffer, let own = try? SessionDescription(parsing: request.body) else { return nil }
        return own.media.first { $0.mediaType.matches(.audio) }
    }

    var offeredCodecs: [String] { audio.map(Self.codecNames) ?? [] }

    var offersSRTP: Bool {
        audio.map { $0.transport.matches(.rtpSAVP) || !((try? $0.cryptos) ?? []).isEmpty } ?? false
    }

    /// The encoding names of an m= line's payload types, in its order (static types by their RFC 3551
    /// names), without telephone-event and comfort noise.
    static func codecNames(_ media: MediaDescription) -> [String] {
        ((try? media.payloadTypes) ?? []).compactMap { type in
            let map = (try? media.rtpMap(for: type)) ?? nil
            guard let name = (map ?? RTPMap.staticAudio(type))?.encodingName else { return nil }
            let lower = name.lowercased()
            return lower == "telephone-event" || lower == "cn" ? nil : name
        }
    }
}

extension Call {
    /// The first snapshot of an outgoing call placed from `account` to `remote` (by the app or a REFER).
    static func outgoing(_ uuid: UUID, account: String?, local: Handle, remote: Handle, date: Date) -> Call {
        Call(
            uuid: uuid, callID: "", account: account, direction: .outgoing, state: .connecting, localHandle: local,
            remoteHandle: remote, remoteDisplayName: nil, isOnHold: false, isRemoteHeld: false, isMuted: false,
            codec: nil, isSecure: false, quality: nil, startedAt: date, connectedAt: nil, endedAt: nil,
            endDetails: nil)
    }
}
