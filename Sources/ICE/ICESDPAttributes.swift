import STUN

/// The ICE attributes of one SDP section (RFC 8839 §5), read and written as attribute name and value strings, so
/// that this module needs no SDP parser.
///
/// Feed each attribute to ``parse(name:value:limits:)``; write them back with ``attributeLines``. Session-level
/// attributes (`ice-lite`, and `ice-options`, `ice-ufrag`, `ice-pwd` when not repeated per media) can go
/// through the same value. The password never appears in ``description``.
public struct ICESDPAttributes: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// `a=ice-ufrag` and `a=ice-pwd`; set when both have been seen.
    public var credentials: ICECredentials? {
        guard let ufrag, let password else { return nil }
        return try? ICECredentials(ufrag: ufrag, password: password)
    }
    /// `a=ice-ufrag`.
    public var ufrag: String?
    /// `a=ice-pwd`.
    public var password: String?
    /// `a=ice-options`, in order.
    public var options: [ICEOption] = []
    /// `a=ice-lite`.
    public var isLite = false
    /// `a=candidate` lines, in order.
    public var candidates: [ICECandidate] = []
    /// `a=remote-candidates`, if present.
    public var remoteCandidates: [ICERemoteCandidate]?
    /// `a=end-of-candidates` (RFC 8840).
    public var isEndOfCandidates = false

    /// No attributes.
    public init() {}

    /// Reads one attribute; returns `false` (and changes nothing) if `name` is not an ICE attribute.
    /// - Parameters:
    ///   - name: the attribute name, e.g. `candidate`.
    ///   - value: the text after the colon; `nil` for a flag attribute.
    ///   - limits: bounds on lengths and counts; also bounds the number of candidates (64 per section).
    /// - Throws: ``ICESDPError`` for a malformed value of an ICE attribute.
    @discardableResult
    public mutating func parse(name: String, value: String?, limits: ICESDPLimits = ICESDPLimits())
        throws(ICESDPError) -> Bool
    {
        if let value, value.utf8.count > limits.maximumValueLength {
            throw ICESDPError(.tooLong, "\(name), \(value.utf8.count) bytes")
        }
        switch name {
        case "candidate":
            guard candidates.count < 64 else { throw ICESDPError(.tooMany, "more than 64 candidates") }
            candidates.append(try ICECandidate(sdpValue: value ?? "", limits: limits))
        case "ice-ufrag":
            guard let value, ICEGrammar.isIceChars(Substring(value), count: 4...256) else {
                throw ICESDPError(.badUfrag)
            }
            ufrag = value
        case "ice-pwd":
            guard let value, ICEGrammar.isIceChars(Substring(value), count: 22...256) else {
                throw ICESDPError(.badPassword, "\(value?.utf8.count ?? 0) bytes")
            }
            password = value
        case "ice-options": options = try Self.parseOptions(value ?? "", limits: limits)
        case "ice-lite":
            guard value == nil || value == "" else { throw ICESDPError(.unexpectedValue, name) }
            isLite = true
        case "end-of-candidates":
            guard value == nil || value == "" else { throw ICESDPError(.unexpectedValue, name) }
            isEndOfCandidates = true
        case "remote-candidates": remoteCandidates = try Self.parseRemoteCandidates(value ?? "", limits: limits)
        default: return false
        }
        return true
    }

    /// `ice-options` values: tags separated by spaces (§5.6).
    public static func parseOptions(_ value: String, limits: ICESDPLimits = ICESDPLimits()) throws(ICESDPError)
        -> [ICEOption]
    {
        let tags = value.split(separator: " ")
        guard !tags.isEmpty else { throw ICESDPError(.badOption, "no tag") }
        guard tags.count <= limits.maximumOptions else {
            throw ICESDPError(.tooMany, "more than \(limits.maximumOptions) options")
        }
        var out: [ICEOption] = []
        for tag in tags {
            guard let option = ICEOption(name: String(tag)) else { throw ICESDPError(.badOption) }
            out.append(option)
        }
        return out
    }

    /// `remote-candidates` values: `component address port`, repeated (§5.2).
    public static func parseRemoteCandidates(_ value: String, limits: ICESDPLimits = ICESDPLimits())
        throws(ICESDPError) -> [ICERemoteCandidate]
    {
        let fields = value.split(separator: " ")
        guard !fields.isEmpty, fields.count % 3 == 0 else {
            throw ICESDPError(.missingField, "remote-candidates needs component, address and port")
        }
        guard fields.count / 3 <= limits.maximumRemoteCandidates else {
            throw ICESDPError(.tooMany, "more than \(limits.maximumRemoteCandidates) remote candidates")
        }
        var out: [ICERemoteCandidate] = []
        for start in stride(from: 0, to: fields.count, by: 3) {
            guard let component = ICEGrammar.decimal(fields[start], digits: 3), (1...256).contains(component) else {
                throw ICESDPError(.badComponent)
            }
            guard let ip = ICEGrammar.ipAddress(fields[start + 1]) else { throw ICESDPError(.badAddress) }
            guard let port = ICEGrammar.port(fields[start + 2]) else { throw ICESDPError(.badPort) }
            out.append(
                ICERemoteCandidate(component: Int(component), address: STUNTransportAddress(address: ip, port: port)))
        }
        return out
    }

    /// The attributes as SDP lines without `a=` or CRLF, in the order ice-lite, ice-ufrag, ice-pwd, ice-options,
    /// candidates, end-of-candidates, remote-candidates. This is SDP: it carries the password.
    public var attributeLines: [String] {
        var lines: [String] = []
        if isLite { lines.append("ice-lite") }
        if let ufrag { lines.append("ice-ufrag:" + ufrag) }
        if let password { lines.append("ice-pwd:" + password) }
        if !options.isEmpty { lines.append("ice-options:" + options.map(\.name).joined(separator: " ")) }
        for candidate in candidates { lines.append(candidate.description) }
        if isEndOfCandidates { lines.append("end-of-candidates") }
        if let remoteCandidates, !remoteCandidates.isEmpty {
            lines.append("remote-candidates:" + Self.remoteCandidatesValue(remoteCandidates))
        }
        return lines
    }

    /// The value of `a=remote-candidates` for `entries`.
    public static func remoteCandidatesValue(_ entries: [ICERemoteCandidate]) -> String {
        entries.map { "\($0.component) \(ICEGrammar.text($0.address.address)) \($0.address.port)" }
            .joined(separator: " ")
    }

    /// The attribute lines with the password redacted.
    public var description: String {
        attributeLines.map { $0.hasPrefix("ice-pwd:") ? "ice-pwd:<redacted>" : $0 }.joined(separator: "\n")
    }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "ufrag": ufrag as Any, "password": "<redacted>", "options": options, "isLite": isLite,
                "candidates": candidates, "remoteCandidates": remoteCandidates as Any,
                "isEndOfCandidates": isEndOfCandidates,
            ])
    }
}
