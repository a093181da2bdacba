import SIPMessage

extension NameAddress {
    /// The To of a new request to `uri`: the callee as given, without URI parameters (the Request-URI
    /// carries the transport's form, `TransportForm`). Pure.
    static func callee(_ uri: URI) -> NameAddress {
        guard case .sip(var sip) = uri else { return NameAddress(uri: uri) }
        if !sip.parameters.isEmpty { sip.parameters = Parameters() }
        return NameAddress(uri: .sip(sip))
    }
}

extension Array where Element == NameAddress {
    /// The route set of a request sent through `outboundProxy`: the proxy as a loose route (`;lr` added
    /// when missing), or none. Pure.
    init(outboundProxy: SIPURI?) {
        guard var proxy = outboundProxy else {
            self = []
            return
        }
        if !proxy.isLooseRouter { proxy.parameters.set("lr", to: nil) }
        self = [NameAddress(uri: .sip(proxy))]
    }
}
