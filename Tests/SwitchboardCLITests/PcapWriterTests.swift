import Foundation
import Testing

@testable import SwitchboardCLI

/// A pcap file read back: the global header fields and each record's packet.
struct PcapFile {
    struct Record {
        var seconds: UInt32
        var microseconds: UInt32
        var originalLength: Int
        var packet: [UInt8]
    }

    var magic: UInt32
    var version: (UInt16, UInt16)
    var snapLength: UInt32
    var linkType: UInt32
    var records: [Record] = []

    init?(_ bytes: [UInt8]) {
        func u32(_ i: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[i + $1]) << (8 * UInt32($1)) } }
        func u16(_ i: Int) -> UInt16 { UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 }
        guard bytes.count >= 24 else { return nil }
        magic = u32(0)
        version = (u16(4), u16(6))
        snapLength = u32(16)
        linkType = u32(20)
        var offset = 24
        while offset + 16 <= bytes.count {
            let captured = Int(u32(offset + 8))
            guard offset + 16 + captured <= bytes.count else { return nil }
            records.append(
                Record(
                    seconds: u32(offset), microseconds: u32(offset + 4), originalLength: Int(u32(offset + 12)),
                    packet: Array(bytes[(offset + 16)..<(offset + 16 + captured)])))
            offset += 16 + captured
        }
        guard offset == bytes.count else { return nil }
    }
}

/// The IP and UDP fields of a synthesized packet.
struct UDPPacket {
    var version: Int
    var source: [UInt8]
    var destination: [UInt8]
    var ipLength: Int
    var sourcePort: UInt16
    var destinationPort: UInt16
    var udpLength: Int
    var udpChecksum: UInt16
    var payload: [UInt8]

    init?(_ p: [UInt8]) {
        func be16(_ i: Int) -> Int { Int(p[i]) << 8 | Int(p[i + 1]) }
        guard let first = p.first else { return nil }
        version = Int(first >> 4)
        let headerLength: Int
        if version == 4 {
            guard p.count >= 28, p[9] == 17 else { return nil }
            headerLength = Int(first & 0x0F) * 4
            ipLength = be16(2)
            source = Array(p[12..<16])
            destination = Array(p[16..<20])
        } else {
            guard version == 6, p.count >= 48, p[6] == 17 else { return nil }
            headerLength = 40
            ipLength = 40 + be16(4)
            source = Array(p[8..<24])
            destination = Array(p[24..<40])
        }
        sourcePort = UInt16(be16(headerLength))
        destinationPort = UInt16(be16(headerLength + 2))
        udpLength = be16(headerLength + 4)
        udpChecksum = UInt16(be16(headerLength + 6))
        payload = Array(p[(headerLength + 8)...])
    }
}

@Suite("pcap writer")
struct PcapWriterTests {
    let invite = Array("INVITE sip:bob@127.0.0.1 SIP/2.0\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n".utf8)
    let ok = Array("SIP/2.0 200 OK\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n".utf8)

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sb-\(UUID().uuidString)-\(name)").path
    }

    func read(_ path: String) throws -> PcapFile {
        let data = try #require(FileManager.default.contents(atPath: path))
        return try #require(PcapFile(Array(data)))
    }

    func endpoint(_ text: String) throws -> PcapWriter.Endpoint { try #require(PcapWriter.Endpoint(text)) }

    @Test func endpointsParse() throws {
        #expect(try endpoint("127.0.0.1:5060") == PcapWriter.Endpoint(address: [127, 0, 0, 1], port: 5060))
        #expect(try endpoint("[::1]:5061").address == [UInt8](repeating: 0, count: 15) + [1])
        #expect(try endpoint("[::1]:5061").port == 5061)
        #expect(PcapWriter.Endpoint("example.com:5060") == nil)
        #expect(PcapWriter.Endpoint("127.0.0.1:99999") == nil)
    }

    @Test func recordsReadBackWithRealAddressesLengthsAndChecksums() throws {
        let path = temporaryPath("a.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try PcapWriter(path: path)
        let time = Date(timeIntervalSince1970: 1_700_000_000.25)
        writer.writeSIP(
            time: time, source: try endpoint("127.0.0.1:5400"), destination: try endpoint("127.0.0.1:5060"),
            message: invite)
        // Written at once: the file is readable before close (a crash leaves it so).
        let early = try read(path)
        #expect(early.records.count == 1)
        writer.writeSIP(
            time: time.addingTimeInterval(0.5), source: try endpoint("[::1]:5060"),
            destination: try endpoint("[::1]:5400"), message: ok)
        writer.close()

        let file = try read(path)
        #expect(file.magic == 0xA1B2_C3D4)
        #expect(file.version == (2, 4))
        #expect(file.linkType == 101)
        #expect(file.snapLength == 65_535)
        #expect(file.records.count == 2)
        #expect(file.records[0].seconds == 1_700_000_000)
        #expect(file.records[0].microseconds == 250_000)
        #expect(file.records[1].microseconds == 750_000)

        let v4 = try #require(UDPPacket(file.records[0].packet))
        #expect(v4.version == 4)
        #expect(v4.source == [127, 0, 0, 1])
        #expect(v4.sourcePort == 5400 && v4.destinationPort == 5060)
        #expect(v4.ipLength == 28 + invite.count && v4.udpLength == 8 + invite.count)
        #expect(v4.payload == invite)
        #expect(file.records[0].originalLength == file.records[0].packet.count)
        #expect(PcapWriter.internetChecksum(Array(file.records[0].packet.prefix(20))) == 0)
        let pseudo4: [UInt8] =
            v4.source + v4.destination + [0, 17, UInt8(v4.udpLength >> 8), UInt8(v4.udpLength & 0xFF)]
        #expect(PcapWriter.internetChecksum(pseudo4 + Array(file.records[0].packet[20...])) == 0)

        let v6 = try #require(UDPPacket(file.records[1].packet))
        #expect(v6.version == 6)
        #expect(v6.destination == [UInt8](repeating: 0, count: 15) + [1])
        #expect(v6.sourcePort == 5060 && v6.destinationPort == 5400)
        #expect(v6.ipLength == 48 + ok.count && v6.payload == ok)
        #expect(v6.udpChecksum != 0)
        let length = v6.udpLength
        let pseudo6: [UInt8] =
            v6.source + v6.destination + [0, 0, UInt8(length >> 8), UInt8(length & 0xFF), 0, 0, 0, 17]
        #expect(PcapWriter.internetChecksum(pseudo6 + Array(file.records[1].packet[40...])) == 0)
    }

    @Test func rtpKeepsOnlyTheHeaderButTellsTheRealLength() throws {
        let path = temporaryPath("rtp.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try PcapWriter(path: path)
        // V=2, X=1, CC=1; PT 0; one CSRC; an extension of 1 word; 160 bytes of payload.
        var rtp: [UInt8] = [0x91, 0x00, 0x00, 0x01, 0, 0, 0, 160, 1, 2, 3, 4, 9, 9, 9, 9]
        rtp += [0xBE, 0xDE, 0x00, 0x01, 0x10, 0xAA, 0, 0] + [UInt8](repeating: 0xFF, count: 160)
        #expect(PcapWriter.rtpHeaderLength(rtp) == 24)
        #expect(PcapWriter.rtpHeaderLength([0x80, 200, 0, 6] + [UInt8](repeating: 0, count: 24)) == 8)
        #expect(PcapWriter.rtpHeaderLength([0x80]) == 1)
        writer.writeRTPHeader(
            time: Date(), source: try endpoint("127.0.0.1:17000"), destination: try endpoint("127.0.0.1:17002"),
            packet: rtp)
        writer.close()
        let file = try read(path)
        let record = try #require(file.records.first)
        #expect(record.packet.count == 28 + 24)
        #expect(record.originalLength == 28 + rtp.count)
        let udp = try #require(UDPPacket(record.packet))
        #expect(udp.udpLength == 8 + rtp.count && udp.payload == Array(rtp.prefix(24)))
    }

    @Test func sessionViewsHandRTPHeadersToThePcap() throws {
        let path = temporaryPath("views.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let views = try #require(try SessionViews.open(AccountOptions(values: ["pcap": path]), io: Capture().io))
        let rtp: [UInt8] = [0x80, 0x00, 0x00, 0x01, 0, 0, 0, 160, 1, 2, 3, 4] + [UInt8](repeating: 0xFF, count: 160)
        views.handleRTP(rtp, sent: false, localAddress: "127.0.0.1:17000", remoteAddress: "127.0.0.1:17002")
        #expect(views.finish(timeout: 0).isEmpty)
        let record = try #require(try read(path).records.first)
        let udp = try #require(UDPPacket(record.packet))
        #expect(udp.sourcePort == 17002 && udp.destinationPort == 17000 && udp.payload == Array(rtp.prefix(12)))
    }

    @Test func theFileIsBounded() throws {
        let path = temporaryPath("small.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try PcapWriter(path: path, maximumFileSize: 24 + 16 + 28 + invite.count)
        for _ in 0..<3 {
            writer.writeSIP(
                time: Date(), source: try endpoint("127.0.0.1:1"), destination: try endpoint("127.0.0.1:2"),
                message: invite)
        }
        writer.close()
        writer.writeSIP(
            time: Date(), source: try endpoint("127.0.0.1:1"), destination: try endpoint("127.0.0.1:2"),
            message: invite)
        #expect(writer.droppedCount == 3)
        let file = try read(path)
        #expect(file.records.count == 1)
    }

    @Test func anUnwritablePathIsAnError() {
        #expect(throws: PcapError.self) { try PcapWriter(path: "/nonexistent-dir/x.pcap") }
    }
}
