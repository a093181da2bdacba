/// One element of an RFC 8285 header extension: its local identifier (mapped to a URI by `a=extmap`) and its
/// data, a slice of the packet.
public struct RTPHeaderExtensionElement: Hashable, Sendable {
    /// The local identifier: 1...14 in the one-byte form, 1...255 in the two-byte form.
    public var identifier: UInt8
    /// The element's data.
    public var data: ArraySlice<UInt8>

    /// - Parameters:
    ///   - identifier: the local identifier.
    ///   - data: the data.
    public init(identifier: UInt8, data: ArraySlice<UInt8>) {
        self.identifier = identifier
        self.data = data
    }
}

/// The client-to-mixer audio level of RFC 6464 §3: the level in -dBov (0 loudest, 127 silence) and the
/// voice-activity flag.
public struct RTPAudioLevel: Hashable, Sendable {
    /// Whether the sender's voice activity detection says the packet holds speech.
    public var voiceActivity: Bool
    /// The level in -dBov, 0...127.
    public var level: UInt8

    /// - Parameters:
    ///   - voiceActivity: the V flag.
    ///   - level: the level in -dBov, 0...127.
    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = level
    }
}

/// RFC 8285's elements inside an RTP header extension: the one-byte form (profile 0xBEDE, §4.2) and the
/// two-byte form (profile 0x100X, §4.3). Reading is bounded by the extension's data and never traps: an
/// element that overruns the data ends the walk with an error, identifier 15 of the one-byte form ends it
/// quietly (§4.2), padding bytes are skipped, and elements the caller does not ask for are stepped over.
///
/// The media session reads the RTP packet (``RTPPacket/headerExtension``) and will ask this for the MID
/// (BUNDLE demultiplexing, RFC 9143 §14) and the audio level once those are negotiated with `a=extmap`.
extension RTPHeaderExtension {
    /// The profile value of the one-byte form.
    public static let oneByteProfile: UInt16 = 0xBEDE

    /// The one-byte form (§4.2) holding `elements` in order, zero-padded to whole words; `nil` when an
    /// identifier is outside 1...14 or an element's data is not 1...16 bytes long (the form cannot carry it).
    public init?(oneByteElements elements: [(identifier: UInt8, data: [UInt8])]) {
        var data: [UInt8] = []
        for element in elements {
            guard (1...14).contains(element.identifier), (1...16).contains(element.data.count) else { return nil }
            data.append(element.identifier << 4 | UInt8(element.data.count - 1))
            data.append(contentsOf: element.data)
        }
        guard !data.isEmpty else { return nil }
        data.append(contentsOf: repeatElement(0, count: (4 - data.count % 4) % 4))
        self.init(profile: Self.oneByteProfile, data: data[...])
    }

    /// Whether the extension uses RFC 8285's one-byte form.
    public var isOneByteForm: Bool { profile == Self.oneByteProfile }

    /// Whether the extension uses RFC 8285's two-byte form (0x100 followed by 4 application bits).
    public var isTwoByteForm: Bool { profile & 0xFFF0 == 0x1000 }

    /// Calls `body` with each element in order, until it returns `false`.
    /// - Throws: ``RTPError`` with `.badHeaderExtension` when an element's length overruns the data; nothing
    ///   for a profile that is not RFC 8285's (no elements).
    public func forEachElement(_ body: (RTPHeaderExtensionElement) -> Bool) throws(RTPError) {
        guard isOneByteForm || isTwoByteForm else { return }
        var offset = data.startIndex
        while offset < data.endIndex {
            let first = data[offset]
            if first == 0 {
                offset += 1
                continue
            }
            let identifier: UInt8
            let length: Int
            let start: Int
            if isOneByteForm {
                identifier = first >> 4
                if identifier == 15 || identifier == 0 { return }
                length = Int(first & 0x0F) + 1
                start = offset + 1
            } else {
                guard data.endIndex - offset >= 2 else {
                    throw RTPError(.badHeaderExtension, "a two-byte element header cut short")
                }
                identifier = first
                length = Int(data[offset + 1])
                start = offset + 2
            }
            guard data.endIndex - start >= length else {
                throw RTPError(.badHeaderExtension, "element \(identifier) of \(length) bytes overruns the extension")
            }
            if !body(RTPHeaderExtensionElement(identifier: identifier, data: data[start..<(start + length)])) {
                return
            }
            offset = start + length
        }
    }

    /// Every element, in order.
    /// - Throws: ``RTPError`` with `.badHeaderExtension` when an element overruns the data.
    public func elements() throws(RTPError) -> [RTPHeaderExtensionElement] {
        var elements: [RTPHeaderExtensionElement] = []
        try forEachElement {
            elements.append($0)
            return true
        }
        return elements
    }

    /// The first element with `identifier`, `nil` when there is none or the walk fails before it.
    public func element(identifier: UInt8) -> RTPHeaderExtensionElement? {
        var found: RTPHeaderExtensionElement?
        try? forEachElement { element in
            if element.identifier == identifier { found = element }
            return found == nil
        }
        return found
    }

    /// The MID of RFC 9143 §14 (the `sdes:mid` extension mapped to `identifier`): its text when it is a
    /// token of 1...255 bytes, `nil` otherwise.
    public func mid(identifier: UInt8) -> String? {
        guard let data = element(identifier: identifier)?.data, !data.isEmpty else { return nil }
        let isToken = data.allSatisfy { byte in
            switch byte {
            case 0x21, 0x23...0x27, 0x2A...0x2B, 0x2D...0x2E, 0x30...0x39, 0x41...0x5A, 0x5E...0x7E: true
            default: false
            }
        }
        return isToken ? String(decoding: data, as: UTF8.self) : nil
    }

    /// The audio level of RFC 6464 (the `ssrc-audio-level` extension mapped to `identifier`).
    public func audioLevel(identifier: UInt8) -> RTPAudioLevel? {
        guard let data = element(identifier: identifier)?.data, let byte = data.first else { return nil }
        return RTPAudioLevel(voiceActivity: byte & 0x80 != 0, level: byte & 0x7F)
    }
}
