/// Bounds the parser enforces before it builds anything, so that hostile input costs little (DESIGN.md:
/// limits are explicit and configurable). Exceeding one throws an `SDPError` with status 400.
public struct SDPLimits: Sendable, Hashable {
    /// The largest description accepted, in bytes.
    public var maximumSize: Int
    /// The longest line accepted, in bytes, without its line end.
    public var maximumLineLength: Int
    /// The most lines accepted, blank ones included.
    public var maximumLines: Int
    /// The most m= lines accepted.
    public var maximumMediaDescriptions: Int

    /// - Parameters:
    ///   - maximumSize: the largest description, in bytes (64 KiB by default).
    ///   - maximumLineLength: the longest line, in bytes (4 KiB by default).
    ///   - maximumLines: the most lines (2048 by default).
    ///   - maximumMediaDescriptions: the most m= lines (64 by default).
    public init(
        maximumSize: Int = 65_536, maximumLineLength: Int = 4096, maximumLines: Int = 2048,
        maximumMediaDescriptions: Int = 64
    ) {
        self.maximumSize = maximumSize
        self.maximumLineLength = maximumLineLength
        self.maximumLines = maximumLines
        self.maximumMediaDescriptions = maximumMediaDescriptions
    }
}
