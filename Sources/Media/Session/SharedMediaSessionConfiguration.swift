/// A ``MediaSessionConfiguration`` that many sessions share: each keeps a reference to it rather than a copy
/// of its own, so a driver of thousands of streams with one configuration holds it once.
public final class SharedMediaSessionConfiguration: Sendable {
    /// The configuration.
    public let value: MediaSessionConfiguration

    /// - Parameter value: the configuration the sessions share.
    public init(_ value: MediaSessionConfiguration) { self.value = value }
}
