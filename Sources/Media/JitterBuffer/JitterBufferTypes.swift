/// How a ``JitterBuffer`` adapts.
public struct JitterBufferConfiguration: Hashable, Sendable {
    /// The payload format's clock rate in Hz.
    public var clockRate: UInt32
    /// The expected samples per packet (160 for 20 ms at 8 kHz) until the traffic shows another.
    public var frameSamples: UInt32
    /// The smallest playout delay above the fastest packets' transit.
    public var minimumDelay: Duration
    /// The largest playout delay: beyond it packets are given up as late rather than waited for (at most
    /// 10 s; the initial and minimum delays are kept within it).
    public var maximumDelay: Duration
    /// The delay to start with, before enough packets have been seen to estimate the jitter.
    public var initialDelay: Duration
    /// The share of packets that should arrive in time: the target delay is this quantile of the recent
    /// transit-time spread (0.99 by default: at most about 1 % late loss, less in practice because the
    /// playout only moves in whole frames).
    public var quantile: Double
    /// How many recent packets the jitter estimate remembers (an exponential forgetting factor of
    /// 1 - 1/memory per packet: 1000 packets is 20 s at 20 ms).
    public var memory: Int
    /// The most packets held; beyond it the oldest is dropped.
    public var capacity: Int
    /// How far above the target (in frames) an underrun may still stretch before the timeline runs on.
    var underrunStretch = 0.5

    /// - Parameters:
    ///   - clockRate: the clock rate in Hz.
    ///   - frameSamples: the expected samples per packet.
    ///   - minimumDelay: the smallest playout delay, 0 by default.
    ///   - maximumDelay: the largest playout delay, 500 ms by default.
    ///   - initialDelay: the delay to start with, 60 ms by default.
    ///   - quantile: the share of packets to play in time, 0.99 by default.
    ///   - memory: the estimate's memory in packets, 1000 by default.
    ///   - capacity: the most packets held, 200 by default.
    public init(
        clockRate: UInt32, frameSamples: UInt32, minimumDelay: Duration = .zero,
        maximumDelay: Duration = .milliseconds(500), initialDelay: Duration = .milliseconds(60),
        quantile: Double = 0.99, memory: Int = 1000, capacity: Int = 200
    ) {
        self.clockRate = clockRate
        self.frameSamples = frameSamples
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.initialDelay = initialDelay
        self.quantile = quantile
        self.memory = memory
        self.capacity = capacity
    }
}

/// A frame the buffer hands to the decoder: one received packet's payload and identity.
public struct JitterBufferFrame: Hashable, Sendable {
    /// The packet's sequence number.
    public var sequenceNumber: UInt16
    /// The packet's timestamp.
    public var timestamp: UInt32
    /// The packet's payload type.
    public var payloadType: UInt8
    /// The packet's marker bit.
    public var marker: Bool
    /// The encoded payload.
    public var payload: ArraySlice<UInt8>
}

/// What the decoder should produce for one frame interval, the result of ``JitterBuffer/pull(at:)``.
public enum JitterBufferOutput: Hashable, Sendable {
    /// Nothing is playing: the buffer is filling before the first frame or after the sender stopped. Play
    /// silence or comfort noise.
    case idle
    /// Decode this frame.
    case frame(JitterBufferFrame)
    /// The frame with `timestamp` (and `sequenceNumber`, when known) is missing at its playout time: conceal
    /// it (PLC; G.711 repeats the last frame with a fade), or recover it from `next`'s in-band FEC (Opus
    /// LBRR) when `next` is given (the following packet is already in the buffer). Concealment consumes the
    /// frame's slot: the playout timeline moves on.
    case missing(timestamp: UInt32, sequenceNumber: UInt16?, next: JitterBufferFrame?)
    /// No frame is due yet: synthesize one frame of concealment without consuming anything. The playout
    /// delay grows by one frame (an underrun, or the buffer stretching towards its target delay).
    case expand
    /// The sender sent nothing for this interval (DTX or silence suppression: the sequence numbers are
    /// contiguous across the gap): play comfort noise or silence.
    case silence

    /// True when the decoder must conceal (``missing(timestamp:sequenceNumber:next:)`` or ``expand``).
    public var isConcealment: Bool {
        switch self {
        case .missing, .expand: true
        case .idle, .frame, .silence: false
        }
    }
}

/// What happened to a packet given to ``JitterBuffer/put(_:at:)``.
public enum JitterBufferPutResult: Hashable, Sendable {
    /// Buffered for playout.
    case buffered
    /// A copy of a packet already received: dropped.
    case duplicate
    /// It arrived after its playout time: dropped and counted as late.
    case late
}

/// The buffer's counters and state.
public struct JitterBufferStatistics: Hashable, Sendable {
    /// Packets given to the buffer.
    public var received = 0
    /// Frames handed to the decoder.
    public var played = 0
    /// Packets that arrived after their playout time (dropped).
    public var late = 0
    /// Frames known lost at their playout time: a gap in the sequence numbers of the packets buffered (each
    /// one concealed with ``JitterBufferOutput/missing(timestamp:sequenceNumber:next:)``), or skipped when
    /// playout resumed after a gap. A slot that passes while the buffer is empty is concealed but not
    /// counted here (it may be a DTX pause); if its packet comes after all, it counts as ``late``.
    public var lost = 0
    /// Duplicate packets dropped.
    public var duplicates = 0
    /// Concealment requests: ``JitterBufferOutput/missing(timestamp:sequenceNumber:next:)`` plus
    /// ``JitterBufferOutput/expand``.
    public var concealed = 0
    /// Frames synthesized without consuming (``JitterBufferOutput/expand``).
    public var expansions = 0
    /// Frames dropped to bring the delay down (a fast sender clock, or a jitter spike that passed).
    public var accelerations = 0
    /// Silent intervals played for DTX gaps.
    public var silentFrames = 0
    /// Packets dropped because the buffer was full.
    public var overflows = 0
    /// Restarts of the whole timeline: a new SSRC, or a timestamp discontinuity.
    public var resets = 0
    /// Jumps of the source's RTP clock, with its sequence numbers running on, that moved its later packets
    /// onto the running timeline.
    public var resynchronisations = 0
    /// Packets held now.
    public var depth = 0
    /// Audio held now, from the next frame to play to the end of the newest packet.
    public var bufferedDuration: Duration = .zero
    /// The current playout delay above the fastest packets' transit time.
    public var playoutDelay: Duration = .zero
    /// The delay the buffer aims at: the jitter quantile, within the configured bounds.
    public var targetDelay: Duration = .zero

    /// Zero counters.
    public init() {}
}
