/// Changes to a call's description, as CallKit's `CXCallUpdate`: only the fields that are set apply.
public struct CallUpdate: Sendable, Hashable {
    /// The other party's address.
    public var remoteHandle: Handle?
    /// The other party's name as the UI shows it (P-Asserted-Identity or From display name).
    public var localizedCallerName: String?
    /// Whether the call can be held (the peer allows re-INVITE or UPDATE).
    public var supportsHolding: Bool?
    /// Whether the call can be grouped with others (no conferencing here: always false when set).
    public var supportsGrouping: Bool?
    /// Whether the call can leave a group.
    public var supportsUngrouping: Bool?
    /// Whether DTMF can be sent (RFC 4733 telephone-event negotiated, or SIP INFO).
    public var supportsDTMF: Bool?
    /// Whether the call has video (never, for now).
    public var hasVideo: Bool?
    /// Beyond CallKit: the other side put the call on hold (`true`) or resumed it (`false`).
    public var isRemoteHeld: Bool?
    /// Beyond CallKit: ICE selected another candidate pair for the media mid-call (an ICE restart, RFC 8445
    /// §9); `Call.mediaPath` says the same.
    public var mediaPath: CallMediaPath?

    /// An update with no field set.
    public init() {}
}
