import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes packets as a classic libpcap file (microsecond timestamps, little-endian, `LINKTYPE_RAW`: each
/// record is an IPv4 or IPv6 packet with a synthesized UDP header), for `--pcap FILE` (CLI.md "Views").
///
/// Framing choice: every packet is written as **UDP** over IP, whatever carried it. A SIP message that went
/// over TCP or TLS becomes one UDP datagram holding the whole message (the stream was already framed by the
/// transport, and TLS messages are the decrypted plaintext). Synthetic TCP would need per-flow sequence
/// numbers and a handshake to decode cleanly, and TCP port 5061 is dissected as TLS, so `tshark -Y sip`
/// would miss those messages; as UDP, `tshark -r FILE -Y sip` decodes every message (port 5060 by port,
/// other ports by the SIP heuristic), and the real transport stays visible in the Via header. The IP
/// addresses and ports are the real local and remote ones.
///
/// Each record goes to the file with one `write(2)` as it arrives (no user-space buffer), so a crash leaves
/// a readable file. The file is bounded: past `maximumFileSize` bytes, packets are counted in `droppedCount`
/// and not written. Thread-safe.
final class PcapWriter: Sendable {
    /// One end of a packet: 4 (IPv4) or 16 (IPv6) address bytes in network order, and a port.
    struct Endpoint: Sendable, Hashable {
        var address: [UInt8]
        var port: UInt16

        /// An endpoint from `127.0.0.1:5060` or `[::1]:5060`; `nil` if the text is not one.
        init?(_ text: String) {
            var host = Substring(text)
            var portText: Substring = "0"
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { return nil }
                let rest = host[host.index(after: close)...]
                host = host[host.index(after: host.startIndex)..<close]
                if rest.hasPrefix(":") { portText = rest.dropFirst() }
            } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
                portText = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard let port = UInt16(portText), let bytes = Self.parseIP(String(host)) else { return nil }
            self.init(address: bytes, port: port)
        }

        init(address: [UInt8], port: UInt16) {
            self.address = address
            self.port = port
        }

        /// The address as IPv6 (an IPv4 address becomes `::ffff:a.b.c.d`).
        var ipv6Address: [UInt8] {
            address.count == 16 ? address : [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + address
        }

        private static func parseIP(_ text: String) -> [UInt8]? {
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                return withUnsafeBytes(of: &v4) { Array($0) }
            }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text, &v6) == 1 {
                return withUnsafeBytes(of: &v6) { Array($0) }
            }
            return nil
        }
    }

    /// `LINKTYPE_RAW`: records start with the IP header (version 4 or 6).
    static let linkTypeRaw: UInt32 = 101
    /// The largest packet a record holds; longer payloads are cut (the lengths still say the real size).
    static let snapLength = 65_535
    /// The default bound on the file size.
    static let defaultMaximumFileSize = 256 * 1024 * 1024

    private struct State {
        var descriptor: Int32
        var size: Int
        var dropped = 0
    }

    private let state: Mutex<State>
    let maximumFileSize: Int

    /// Creates (or truncates) `path` and writes the file header.
    /// - Throws: `PcapError` when the file cannot be opened or written.
    init(path: String, maximumFileSize: Int = PcapWriter.defaultMaximumFileSize) throws(PcapError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PcapError(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        let header = Self.fileHeader()
        guard Self.writeAll(fd, header) else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw PcapError(message: "cannot write \(path): \(reason)")
        }
        self.maximumFileSize = maximumFileSize
        state = Mutex(State(descriptor: fd, size: header.count))
    }

    deinit { close() }

    /// Packets not written because the file reached its bound (or a write failed).
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Writes one SIP message (see the type's note on framing).
    func writeSIP(time: Date, source: Endpoint, destination: Endpoint, message: [UInt8]) {
        write(Self.record(time: time, source: source, destination: destination, payload: message))
    }

    /// Writes an RTP (or RTCP) packet's header only, for the media layer: the fixed header, CSRCs and the
    /// header extension are kept (RFC 3550 §5.1, §5.3.1), the payload is not; the IP and UDP lengths and
    /// the record's original length still give the real size.
    /// - Parameters:
    ///   - packet: the whole RTP packet as sent or received (after SRTP protection, if any).
    func writeRTPHeader(time: Date, source: Endpoint, destination: Endpoint, packet: [UInt8]) {
        let kept = Self.rtpHeaderLength(packet)
        write(
            Self.record(
                time: time, source: source, destination: destination, payload: Array(packet.prefix(kept)),
                payloadLength: packet.count))
    }

    /// Closes the file; later packets are dropped.
    func close() {
        state.withLock { state in
            guard state.descriptor >= 0 else { return }
            Glibc.close(state.descriptor)
            state.descriptor = -1
        }
    }

    private func write(_ record: [UInt8]) {
        state.withLock { state in
            guard state.descriptor >= 0, state.size + record.count <= maximumFileSize,
                Self.writeAll(state.descriptor, record)
            else {
                state.dropped += 1
                return
            }
            state.size += record.count
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return false }
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    // MARK: Encoding (pure)

    /// The 24-byte global header: magic `a1b2c3d4` (microseconds), version 2.4, snap length, `LINKTYPE_RAW`.
    static func fileHeader() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLittleEndian(UInt32(0xA1B2_C3D4))
        out.appendLittleEndian(UInt16(2))
        out.appendLittleEndian(UInt16(4))
        out.appendLittleEndian(UInt32(0))  // thiszone
        out.appendLittleEndian(UInt32(0))  // sigfigs
        out.appendLittleEndian(UInt32(snapLength))
        out.appendLittleEndian(linkTypeRaw)
        return out
    }

    /// One record: the 16-byte record header, then IP + UDP + payload. `payloadLength` is the real payload
    /// size when `payload` holds only its start (RTP headers); checksums are computed only for whole packets.
    static func record(
        time: Date, source: Endpoint, destination: Endpoint, payload: [UInt8], payloadLength: Int? = nil
    ) -> [UInt8] {
        let ipv6 = source.address.count == 16 || destination.address.count == 16
        let ipHeaderLength = ipv6 ? 40 : 20
        let maximumPayload = 65_535 - 8 - (ipv6 ? 0 : ipHeaderLength)
        let realLength = min(payloadLength ?? payload.count, maximumPayload)
        let captured = Array(payload.prefix(min(realLength, snapLength - ipHeaderLength - 8)))
        let isWhole = captured.count == realLength
        let udpLength = 8 + realLength

        var udp: [UInt8] = []
        udp.appendBigEndian(source.port)
        udp.appendBigEndian(destination.port)
        udp.appendBigEndian(UInt16(udpLength))
        udp.appendBigEndian(UInt16(0))
        udp += captured

        var ip: [UInt8] = []
        if ipv6 {
            ip.appendBigEndian(UInt32(0x6000_0000))
            ip.appendBigEndian(UInt16(udpLength))
            ip += [17, 64]  // next header UDP, hop limit
            ip += source.ipv6Address
            ip += destination.ipv6Address
        } else {
            ip += [0x45, 0]
            ip.appendBigEndian(UInt16(20 + udpLength))
            ip += [0, 0, 0x40, 0]  // identification 0, don't fragment
            ip += [64, 17, 0, 0]  // TTL, UDP, checksum (below)
            ip += source.address
            ip += destination.address
            let sum = internetChecksum(ip)
            ip[10] = UInt8(sum >> 8)
            ip[11] = UInt8(sum & 0xFF)
        }
        if isWhole {
            // UDP checksum over the pseudo-header (RFC 768; RFC 8200 §8.1, where it is mandatory).
            var pseudo: [UInt8] = []
            if ipv6 {
                pseudo += source.ipv6Address + destination.ipv6Address
                pseudo.appendBigEndian(UInt32(udpLength))
                pseudo += [0, 0, 0, 17]
            } else {
                pseudo += source.address + destination.address
                pseudo += [0, 17]
                pseudo.appendBigEndian(UInt16(udpLength))
            }
            var sum = internetChecksum(pseudo + udp)
            if sum == 0 { sum = 0xFFFF }
            udp[6] = UInt8(sum >> 8)
            udp[7] = UInt8(sum & 0xFF)
        }

        let packet = ip + udp
        let seconds = time.timeIntervalSince1970
        let whole = UInt32(clamping: Int64(seconds.rounded(.down)))
        let micros = UInt32(clamping: Int64(((seconds - seconds.rounded(.down)) * 1_000_000).rounded(.down)))
        var out: [UInt8] = []
        out.reserveCapacity(16 + packet.count)
        out.appendLittleEndian(whole)
        out.appendLittleEndian(min(micros, 999_999))
        out.appendLittleEndian(UInt32(packet.count))
        out.appendLittleEndian(UInt32(ipHeaderLength + udpLength))
        out += packet
        return out
    }

    /// How many bytes of an RTP packet are header: 12, plus 4 per CSRC, plus the extension when the X bit
    /// is set (RFC 3550 §5.1, §5.3.1); an RTCP packet (payload types 200-204 after the marker bit) keeps its
    /// first 8 bytes. Never more than the packet.
    static func rtpHeaderLength(_ packet: [UInt8]) -> Int {
        guard packet.count >= 12 else { return packet.count }
        if (200...204).contains(Int(packet[1])) { return 8 }
        var length = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0, packet.count >= length + 4 {
            let words = Int(packet[length + 2]) << 8 | Int(packet[length + 3])
            length += 4 + 4 * words
        }
        return min(length, packet.count)
    }

    /// The 16-bit one's-complement sum of RFC 1071.
    static func internetChecksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var i = 0
        while i + 1 < bytes.count {
            sum += UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
            i += 2
        }
        if i < bytes.count { sum += UInt32(bytes[i]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }
}

/// Why a pcap file could not be written.
struct PcapError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
