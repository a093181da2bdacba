/// `a=rtcp-rsize` (RFC 5506 §5): the property attribute that allows reduced-size RTCP.
extension Attribute {
    /// The attribute name.
    public static let rtcpReducedSizeName = "rtcp-rsize"
    /// `a=rtcp-rsize`.
    public static let rtcpReducedSize = Attribute(rtcpReducedSizeName)
}

extension MediaDescription {
    /// Whether the section carries `a=rtcp-rsize` (RFC 5506 §5).
    public var allowsReducedSizeRTCP: Bool { hasAttribute(named: Attribute.rtcpReducedSizeName) }
}
