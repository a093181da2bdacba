#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A logger shaped like swift-log's `Logger`, without depending on swift-log: levels from `trace` to
/// `critical`, lazily built messages, metadata. The caller passes one in; the library never makes its own.
/// Bridge to swift-log with a `LogHandler` that forwards to a swift-log logger.
public struct Logger: Sendable {
    /// Severity, lowest first (swift-log's levels).
    public enum Level: String, Sendable, Hashable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    }

    /// Key-value context attached to log lines.
    public typealias Metadata = [String: String]

    /// The label of the subsystem (`switchboard.provider`).
    public let label: String
    /// Where lines go.
    public var handler: any LogHandler

    /// A logger with `label` writing through `handler`.
    public init(label: String, handler: any LogHandler) {
        self.label = label
        self.handler = handler
    }

    /// A logger that drops everything (the default when the caller passes none).
    public static func discarding(label: String = "switchboard") -> Logger {
        Logger(label: label, handler: DiscardingLogHandler())
    }

    /// The lowest level that is written.
    public var logLevel: Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    /// Metadata added to every line.
    public subscript(metadataKey key: String) -> String? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }

    /// Writes `message` at `level` when the level is enabled; the message is built only then.
    public func log(
        level: Level, _ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil,
        source: String? = nil, file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard level >= handler.logLevel else { return }
        handler.log(
            level: level, message: message(), metadata: metadata(), source: source ?? label, file: file,
            function: function, line: line)
    }

    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .trace, message(), metadata: metadata())
    }

    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .debug, message(), metadata: metadata())
    }

    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .info, message(), metadata: metadata())
    }

    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .notice, message(), metadata: metadata())
    }

    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .warning, message(), metadata: metadata())
    }

    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .error, message(), metadata: metadata())
    }

    public func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .critical, message(), metadata: metadata())
    }
}

/// Where a `Logger`'s lines go: swift-log 1.x's `LogHandler` requirements, so an adapter is a few lines.
public protocol LogHandler: Sendable {
    /// Writes one line.
    func log(
        level: Logger.Level, message: String, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt)
    /// Metadata added to every line.
    subscript(metadataKey key: String) -> String? { get set }
    /// All of it.
    var metadata: Logger.Metadata { get set }
    /// The lowest level written.
    var logLevel: Logger.Level { get set }
}

/// Drops every line.
public struct DiscardingLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .critical

    public init() {}

    public func log(
        level: Logger.Level, message: String, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {}

    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// Writes lines to standard error: `LEVEL label: message key=value ...`.
public struct StandardErrorLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level

    /// A handler writing `logLevel` and above.
    public init(logLevel: Logger.Level = .info) { self.logLevel = logLevel }

    public func log(
        level: Logger.Level, message: String, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        var text = "\(level.rawValue) \(source): \(message)"
        let all = self.metadata.merging(metadata ?? [:]) { _, new in new }
        for key in all.keys.sorted() { text += " \(key)=\(all[key] ?? "")" }
        text += "\n"
        writeToStandardError(text)
    }

    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// One `write(2)` per line, so lines from several threads do not interleave.
func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
