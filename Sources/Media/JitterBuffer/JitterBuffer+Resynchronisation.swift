extension JitterBuffer {
    /// Without the marker bit, a timestamp further than this from where both its sequence number and its
    /// arrival time put it is a jump of the sender's RTP clock (nanoseconds).
    static let clockJump = 2e9
    /// Sequence numbers at most this far ahead of the previous packet still run on: the jump is measured
    /// against the packets just before it.
    static let resynchronisationReach: Int64 = 100

    /// Where a packet belongs on the timeline when its source jumped its RTP clock and kept its sequence
    /// numbers running; `nil` when it did not jump.
    ///
    /// A DTX pause moves the timestamp with the arrival time, a path stall holds it to the sequence number;
    /// a jump of the sender's clock matches neither. Such a packet is placed where its arrival puts it, on
    /// the frame grid of the packet before, so the audio after the jump plays instead of being dropped as
    /// late or held as too early. With the marker bit (a talk-spurt start, RFC 3551 §4.1) a jump beyond the
    /// maximum delay counts, since that much would already be lost or held; without it, beyond ``clockJump``.
    func resynchronisation(
        of timestamp: Int64, sequence: Int64, at arrival: MediaInstant, marker: Bool
    ) -> Int64? {
        guard let last = lastArrival, sequence > last.sequence,
            sequence - last.sequence <= JitterBuffer.resynchronisationReach
        else { return nil }
        let frame = Double(frameSamples)
        let bySequence = Double(last.timestamp) + Double(sequence - last.sequence) * frame
        let elapsed =
            (Double(arrival.nanoseconds) - Double(last.time.nanoseconds)) * Double(configuration.clockRate) / 1e9
        guard elapsed.isFinite, elapsed.magnitude < 0x1p40 else { return nil }
        let byArrival = Double(last.timestamp) + elapsed
        let limit =
            marker
            ? max(Double(configuration.maximumDelay.nanoseconds), 4 * nanoseconds(samples: frameSamples))
            : JitterBuffer.clockJump
        let threshold = limit * Double(configuration.clockRate) / 1e9
        let value = Double(timestamp)
        guard (value - bySequence).magnitude > threshold, (value - byArrival).magnitude > threshold else { return nil }
        // Back to back with the packet before, unless the arrival shows a pause too.
        guard byArrival - bySequence > 2 * frame else { return Int64(bySequence) }
        return last.timestamp + Int64((elapsed / frame).rounded()) * frameSamples
    }
}
