/// `a=rtcp-fb:<payload type or *> <type> [<parameter>]` (RFC 4585 §4.2): a kind of RTCP feedback the
/// endpoint takes for a payload type (`nack`, `nack pli`, `ccm fir`, `trr-int 100`, `transport-cc`, ...).
public struct RTCPFeedback: SDPAttributeValue {
    public static let attributeName = "rtcp-fb"

    /// The payload type it applies to; `nil` for `*`, every payload type.
    public var payloadType: UInt8?
    /// The feedback type (`ack`, `nack`, `trr-int`, `ccm`, `goog-remb`, ...), as written.
    public var type: String
    /// The rest: a parameter such as `pli`, `fir`, a `trr-int` value; `nil` when none.
    public var parameter: String?

    /// - Parameters:
    ///   - payloadType: the payload type, `nil` for all.
    ///   - type: the feedback type.
    ///   - parameter: its parameter, if any.
    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), fields.count >= 2 else {
            throw RTCPFeedback.malformed(value, "expected <payload type or *> <type> [<parameter>]")
        }
        var payloadType: UInt8?
        if fields[0] != "*" {
            guard let number = parseDecimal(fields[0], limit: 127), fields[0].utf8.count <= 3 else {
                throw RTCPFeedback.malformed(value, "the payload type is not 0...127 or *")
            }
            payloadType = UInt8(number)
        }
        guard fields[1].isSDPToken else { throw RTCPFeedback.malformed(value, "the feedback type is not a token") }
        if fields[1].equalsIgnoringASCIICase("trr-int") {
            guard fields.count == 3, parseDecimal(fields[2]) != nil else {
                throw RTCPFeedback.malformed(value, "trr-int takes one integer (milliseconds)")
            }
        }
        let parameter = fields.dropFirst(2).joined(separator: " ")
        self.init(payloadType: payloadType, type: fields[1], parameter: parameter.isEmpty ? nil : parameter)
    }

    public var attributeValue: String {
        var text = (payloadType.map { "\($0)" } ?? "*") + " " + type
        if let parameter { text += " " + parameter }
        return text
    }
}
