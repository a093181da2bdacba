extension SetupRole {
    /// The role an answerer takes for this offered role (RFC 8842 §5.3, RFC 5763 §5): `active` (the DTLS
    /// client) for `actpass` or `passive`, `passive` for `active`; `nil` for `holdconn`.
    public var answer: SetupRole? {
        switch self {
        case .actpass, .passive: .active
        case .active: .passive
        case .holdconn: nil
        }
    }
}
