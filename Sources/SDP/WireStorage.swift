import Synchronization

/// A description kept as bytes: an offer as it was received (scanned, with the range of each line), or an answer
/// as `WireWriter` wrote it (canonical: the bytes serializing its model would give, sent as they are). What
/// `SessionDescription(parsing:)` makes of the usual description, so that an offer is answered from its bytes
/// (`OfferAnswer+WireAnswer.swift`). The typed model is built from the bytes, once, the first time a property
/// asks for it; the bytes are never written to.
final class WireStorage: DescriptionStorage, @unchecked Sendable {
    // Safe to send: every stored property is a `let` of a Sendable type; the cached model sits behind a mutex
    // and is never written to once set.

    /// One non-blank line: its type letter and the range of its value (after `<type>=`, without the line end);
    /// for an a= line, what attribute it is and where its name ends (its value follows a colon after it).
    struct Line {
        let type: UInt8
        let kind: AttributeKind
        let nameLength: UInt16
        let start: UInt32
        let end: UInt32

        var range: Range<Int> { Int(start)..<Int(end) }
        /// An a= line's name.
        var name: Range<Int> { Int(start)..<(Int(start) + Int(nameLength)) }
        /// An a= line's value, after the colon; `nil` for a property attribute.
        var value: Range<Int>? {
            let colon = Int(start) + Int(nameLength)
            return colon < Int(end) ? (colon + 1)..<Int(end) : nil
        }
    }

    /// The description as received or written.
    let bytes: [UInt8]
    /// A scanned description's lines, in order, blank ones left out; empty for a written one.
    let lines: [Line]
    /// A written description's o= version field; `nil` for a scanned one.
    let versionField: Range<Int>?
    /// The number in `versionField`.
    private let writtenVersion: UInt64
    /// True when every byte is ASCII: fast readers then take fields as they are (the model repairs invalid UTF-8).
    /// False for a written description, which no fast reader reads.
    let isASCII: Bool
    /// The limits the model is parsed under; the bytes passed them already.
    private let limits: SDPLimits
    /// The model, once a property asked for it; never written to after it is set.
    private let cache = Mutex<ModelStorage?>(nil)

    /// A scanned description.
    init(scanned bytes: [UInt8], lines: [Line], isASCII: Bool, limits: SDPLimits) {
        self.bytes = bytes
        self.lines = lines
        self.versionField = nil
        self.writtenVersion = 0
        self.isASCII = isASCII
        self.limits = limits
    }

    /// A description `WireWriter` wrote, its o= version `version` at `versionField`.
    init(written bytes: [UInt8], versionField: Range<Int>, version: UInt64) {
        self.bytes = bytes
        self.lines = []
        self.versionField = versionField
        self.writtenVersion = version
        self.isASCII = false
        self.limits = .unbounded
    }

    /// True when `bytes` is what serializing the model writes: then it is sent as it is.
    var isCanonical: Bool { versionField != nil }

    /// The model, parsed from the bytes the first time.
    var model: ModelStorage {
        cache.withLock { cached in
            if let cached { return cached }
            let built = ModelStorage(materialize())
            cached = built
            return built
        }
    }

    /// Whether `model` was asked for.
    var hasBuiltModel: Bool { cache.withLock { $0 != nil } }

    /// The model `SDPParser` makes of the bytes. It cannot fail: the bytes passed the same checks when they were
    /// scanned (`FuzzSDP` checks that both agree), or were written by `WireWriter` (whose output parses).
    private func materialize() -> SessionDescription.Model {
        var parser = SDPParser(limits: limits)
        if let model = try? parser.parse(bytes) { return model }
        assertionFailure("a scanned description failed to parse")
        return SessionDescription.Model(origin: Origin(sessionID: "0", sessionVersion: 0, address: "-"))
    }

    /// The o= version, read from the bytes (the model's `origin.sessionVersion`); `nil` when there is none.
    var sessionVersion: UInt64? {
        if versionField != nil { return writtenVersion }
        return bytes.withUnsafeBufferPointer { p in
            guard let line = lines.first(where: { $0.type == UInt8(ascii: "o") }) else { return nil }
            var fields = FieldCursor(p, line.range)
            _ = fields.next()
            _ = fields.next()
            return fields.next().flatMap { p.decimal($0) }
        }
    }

    /// A written description with its o= version replaced; `nil` for a scanned one.
    func replacingSessionVersion(_ version: UInt64) -> WireStorage? {
        guard let versionField else { return nil }
        var digits: [UInt8] = []
        digits.appendDecimal(version)
        var replaced = bytes
        replaced.replaceSubrange(versionField, with: digits)
        let field = versionField.lowerBound..<(versionField.lowerBound + digits.count)
        return WireStorage(written: replaced, versionField: field, version: version)
    }
}
