/// How one call does ICE: the policy, servers and deadlines of its account or of the provider, resolved once
/// when the call starts. `nil` from `resolve` means the call does not use ICE. Pure.
struct ICESettings: Sendable, Hashable {
    /// Only relayed candidates are offered and paired (`ICEPolicy.relayOnly`).
    var isRelayOnly: Bool
    var stunServers: [STUNServer]
    var turnServers: [TURNServer]
    /// How long gathering may take before the offer or answer goes out with what was found.
    var gatheringTimeout: Duration
    /// How long, once checks can start, a call waits for a selected pair before it fails.
    var connectivityTimeout: Duration
    /// How long a held `connected` waits, once a valid pair exists, for the selection before it connects on
    /// the valid pair: twice the agent's 500 ms nomination delay.
    var validPairGrace: Duration = .seconds(1)

    /// The account's servers and policy where it has them, else the provider's; without a policy anywhere,
    /// ICE is on exactly when there is a STUN or TURN server. `nil` when ICE is off.
    static func resolve(_ configuration: CallProviderConfiguration, account: Account?) -> ICESettings? {
        let stun = account?.stunServers ?? configuration.stunServers
        let turn = account?.turnServers ?? configuration.turnServers
        let policy =
            account?.icePolicy ?? configuration.icePolicy ?? (stun.isEmpty && turn.isEmpty ? .off : .on)
        switch policy.code {
        case .off: return nil
        case .on, .relayOnly:
            return ICESettings(
                isRelayOnly: policy == .relayOnly, stunServers: policy == .relayOnly ? [] : stun, turnServers: turn,
                gatheringTimeout: configuration.iceGatheringTimeout,
                connectivityTimeout: configuration.iceConnectivityTimeout)
        }
    }
}
