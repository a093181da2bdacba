/// A ``MediaSessionConfiguration`` that many sessions share: each keeps a reference to it rather than a copy
/// of its own, so a driver of thousands of streams with one configuration holds it once.
public final class SharedMediaSessionConfiguration: Sendable {
    /// The configuration.
    public let value: MediaSessionConfiguration
    /// `value.relatchAfter` as the latches keep it: worked out once here rather than by every new session
    /// (`Duration`'s 128-bit arithmetic).
    @usableFromInline let relatchNanoseconds: Int64

    /// - Parameter value: the configuration the sessions share.
    public init(_ value: MediaSessionConfiguration) {
        self.value = value
        relatchNanoseconds = SymmetricRTPLatch<Int>.encode(value.relatchAfter)
    }
}
