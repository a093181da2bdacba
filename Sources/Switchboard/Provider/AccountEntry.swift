import SIPAuthentication
import SIPMessage

/// One configured account, parsed once: its address of record, registrar, outbound proxy and mailbox, and
/// what the drivers that act for it need from it.
struct AccountEntry {
    let account: Account
    let addressOfRecord: SIPURI
    let registrar: SIPURI?
    let outboundProxy: SIPURI?
    /// The WebSocket server every request goes through (`Account.webSocketURL`).
    let webSocket: WebSocketURL?
    /// The account's transport: as configured, or the WebSocket URL's (WS or WSS).
    let transport: SIPTransportKind?
    /// Where message-summary SUBSCRIBEs go (the AOR unless configured).
    let messageSummaryURI: URI

    init(_ account: Account) throws(CallError) {
        self.account = account
        guard let aor = try? SIPURI(account.addressOfRecord), aor.user != nil else {
            throw .configuration("account \(account.id): bad address of record \(account.addressOfRecord)")
        }
        addressOfRecord = aor
        messageSummaryURI = try .sip(Self.parse(account.messageSummaryURI, "message-summary URI", account) ?? aor)
        registrar = try Self.parse(account.registrar, "registrar", account)
        if let text = account.webSocketURL {
            guard let url = WebSocketURL(text), let hop = url.sipURI else {
                throw .configuration("account \(account.id): bad WebSocket URL \(text)")
            }
            webSocket = url
            // Calls, subscriptions and messages reach the server as their first hop, over the WebSocket: it
            // takes the outbound proxy's place (a loose route).
            outboundProxy = hop
            transport = account.transport ?? SIPTransportKind(url.transport)
        } else {
            webSocket = nil
            outboundProxy = try Self.parse(account.outboundProxy, "outbound proxy", account)
            transport = account.transport
        }
    }

    private static func parse(_ text: String?, _ what: String, _ account: Account) throws(CallError) -> SIPURI? {
        guard let text else { return nil }
        guard let uri = try? SIPURI(text) else { throw .configuration("account \(account.id): bad \(what) \(text)") }
        return uri
    }

    var id: String { account.id }

    /// The domain that completes a bare user name or number the app dials from this account.
    var defaultDomain: String { addressOfRecord.host.description }

    /// Digest credentials for a realm, from the account's password or credentials provider.
    var credentials: @Sendable (String) -> DigestCredentials? {
        let user = account.authenticationUser ?? addressOfRecord.user ?? ""
        switch account.credentials {
        case .none: return { _ in nil }
        case .password(let password): return { _ in DigestCredentials(username: user, password: password) }
        case .provider(let provide):
            return { realm in provide(realm).map { DigestCredentials(username: user, password: $0) } }
        }
    }

    /// What the registration driver needs to register the account at `registrar`; `instanceID` is the
    /// account's `+sip.instance` unless it configures one.
    func registrationSettings(registrar: SIPURI, userAgent: String, instanceID: String? = nil)
        -> RegistrationDriver.Settings
    {
        RegistrationDriver.Settings(
            addressOfRecord: addressOfRecord, registrar: registrar, transport: transport?.transportProtocol,
            firstHop: webSocket?.sipURI,
            contactUser: addressOfRecord.user ?? "user", expires: account.expires,
            keepAliveInterval: account.keepAliveInterval, instanceID: account.instanceID ?? instanceID,
            contactParameters: account.push?.contactParameters ?? [],
            userAgent: userAgent)
    }

    /// The account's message-summary subscription (RFC 3842): its mailbox, From, route and expiry.
    var messageSummaryTarget: SubscriptionDriver.Target {
        var from = NameAddress(uri: .sip(addressOfRecord))
        from.displayName = account.displayName
        return SubscriptionDriver.Target(
            uri: messageSummaryURI, from: from, outboundProxy: outboundProxy, transport: transport,
            expires: account.messageSummaryExpires, credentials: credentials)
    }
}
