/// `a=fmtp:<format> <format specific parameters>` (RFC 8866 §6.15). The parameter string is kept as
/// written; `parameters` splits the common `key=value;key=value` form.
public struct FormatParameters: SDPAttributeValue {
    public static let attributeName = "fmtp"

    /// One `name=value` (or bare `name`, as in telephone-event's `0-16`) item of the parameter string.
    public struct Parameter: Sendable, Hashable {
        /// The name, as written.
        public var name: String
        /// The value after `=`, or `nil` for a bare item.
        public var value: String?

        /// - Parameters:
        ///   - name: the parameter name.
        ///   - value: the value, or `nil` for a bare item.
        public init(_ name: String, _ value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    /// The format (RTP payload type) the parameters apply to.
    public var format: String
    /// The parameter string, as written.
    public var parameterString: String

    /// - Parameters:
    ///   - format: the format, e.g. `"111"`.
    ///   - parameterString: the parameters as they are to be written.
    public init(format: String, parameterString: String) {
        self.format = format
        self.parameterString = parameterString
    }

    /// Joins `parameters` as `name=value;name=value`.
    /// - Parameters:
    ///   - format: the format, e.g. `"111"`.
    ///   - parameters: the items in order.
    public init(format: String, parameters: [Parameter]) {
        self.format = format
        self.parameterString = parameters.map { p in p.value.map { p.name + "=" + $0 } ?? p.name }
            .joined(separator: ";")
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        var scanner = SDPScanner(value)
        guard let format = scanner.readField() else {
            throw FormatParameters.malformed(value, "missing format")
        }
        guard scanner.isAtEnd || scanner.skipWhitespace() else {
            throw FormatParameters.malformed(value, "format is not followed by a space")
        }
        self.format = format
        self.parameterString = scanner.readRest()
    }

    public var attributeValue: String {
        parameterString.isEmpty ? format : format + " " + parameterString
    }

    /// The items of the parameter string, split at `;` with the white space around each trimmed.
    public var parameters: [Parameter] {
        parameterString.split(separator: ";").compactMap { item in
            let trimmed = item.trimmingSDPWhitespace()
            guard !trimmed.isEmpty else { return nil }
            guard let equals = trimmed.firstIndex(of: "=") else { return Parameter(String(trimmed)) }
            let name = trimmed[..<equals].trimmingSDPWhitespace()
            let value = trimmed[trimmed.index(after: equals)...].trimmingSDPWhitespace()
            return Parameter(String(name), String(value))
        }
    }

    /// The value of the parameter called `name` (ignoring ASCII case); `nil` when absent or bare.
    public func value(of name: String) -> String? {
        parameters.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

extension Substring {
    func trimmingSDPWhitespace() -> Substring {
        var result = self
        while let first = result.utf8.first, first.isSDPWhitespace { result = result.dropFirst() }
        while let last = result.utf8.last, last.isSDPWhitespace { result = result.dropLast() }
        return result
    }
}
