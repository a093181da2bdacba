/// The jitter buffer's media timeline: 32-bit RTP timestamps extended to 64 bits, and, after the sender
/// jumped its RTP clock within one source, moved so that the frames after the jump follow those before it.
///
/// A re-synchronisation starts a new mapping at the packet that jumped; packets numbered before it (late
/// or reordered ones from before the jump) keep the mapping they had.
struct TimestampTimeline: Sendable {
    /// One stretch of the sender's clock: the highest timestamp seen in it (extended) and its distance to
    /// the timeline.
    private struct Mapping: Sendable {
        var highest: Int64
        var offset: Int64
        /// The extended sequence number of the first packet on this mapping.
        var firstSequence: Int64

        /// Extends a timestamp to the one nearest the highest seen (RFC 1982 serial-number arithmetic).
        mutating func extend(_ timestamp: UInt32) -> Int64 {
            let extended = highest + Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: highest)))
            if extended > highest { highest = extended }
            return extended
        }
    }

    private var current: Mapping?
    private var previous: Mapping?

    /// The timeline position of the first packet: the origin of media time.
    private(set) var origin: Int64 = 0

    /// The timeline position of a packet's timestamp.
    /// - Parameters:
    ///   - timestamp: the packet's RTP timestamp.
    ///   - sequence: its extended sequence number, which tells which mapping it belongs to.
    mutating func position(of timestamp: UInt32, sequence: Int64) -> Int64 {
        guard var mapping = current else {
            current = Mapping(highest: Int64(timestamp), offset: 0, firstSequence: sequence)
            origin = Int64(timestamp)
            return origin
        }
        if sequence < mapping.firstSequence, var older = previous {
            let extended = older.extend(timestamp)
            previous = older
            return extended &+ older.offset
        }
        let extended = mapping.extend(timestamp)
        current = mapping
        return extended &+ mapping.offset
    }

    /// Puts a packet whose timestamp jumped at `position`; later packets of the same stretch follow it.
    /// - Parameters:
    ///   - timestamp: the packet's RTP timestamp.
    ///   - sequence: its extended sequence number.
    ///   - position: where on the timeline it belongs.
    mutating func resynchronise(_ timestamp: UInt32, sequence: Int64, at position: Int64) {
        previous = current
        current = Mapping(highest: Int64(timestamp), offset: position &- Int64(timestamp), firstSequence: sequence)
    }

    /// The RTP timestamp of a timeline position on the current mapping (for concealment requests).
    func rtpTimestamp(at position: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: position &- (current?.offset ?? 0))
    }
}
