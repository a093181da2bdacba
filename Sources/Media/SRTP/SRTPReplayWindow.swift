/// The packet indices one SSRC has used (RFC 3711 §3.3.2): the highest index so far and a bitmap of the
/// `size` indices up to it. Indices are the 48-bit SRTP index (ROC and SEQ) or the 31-bit SRTCP index.
struct SRTPReplayWindow {
    /// The highest index accepted; meaningless while ``isEmpty``.
    private(set) var highest: UInt64 = 0
    /// Bit `k` is set when index `highest - k` was accepted.
    private var bitmap: UInt128 = 0
    /// No index accepted yet.
    private(set) var isEmpty = true
    /// The window in packets, 64...128.
    let size: UInt64

    init(size: Int) { self.size = UInt64(size) }

    /// Whether `index` is new: ahead of the window, or inside it and not yet used.
    func accepts(_ index: UInt64) -> Bool {
        if isEmpty || index > highest { return true }
        let behind = highest - index
        return behind < size && bitmap & (1 << behind) == 0
    }

    /// Records `index` as used (after it authenticated, or was protected).
    mutating func record(_ index: UInt64) {
        if isEmpty {
            isEmpty = false
            highest = index
            bitmap = 1
        } else if index > highest {
            let ahead = index - highest
            bitmap = ahead >= 128 ? 1 : bitmap << ahead | 1
            highest = index
        } else {
            let behind = highest - index
            if behind < 128 { bitmap |= 1 << behind }
        }
    }

    /// The 48-bit SRTP index of a packet with sequence number `sequence` (RFC 3711 §3.3.1, Appendix A): the
    /// rollover counter that puts it nearest the highest index so far; the first packet has ROC 0.
    /// - Returns: the index, or `nil` when the rollover counter would pass 2^32 - 1 (the key is exhausted).
    func estimatedIndex(sequence: UInt16) -> UInt64? {
        guard !isEmpty else { return UInt64(sequence) }
        let roc = highest >> 16
        let last = Int(highest & 0xFFFF)
        let seq = Int(sequence)
        var guess = roc
        if last < 0x8000 {
            if seq - last > 0x8000 && roc > 0 { guess = roc - 1 }
        } else if last - 0x8000 > seq {
            guess = roc + 1
        }
        guard guess <= 0xFFFF_FFFF else { return nil }
        return guess << 16 | UInt64(sequence)
    }
}
