/// The DTLS record framing the engine reads before OpenSSL does (RFC 6347 §4.1): every received datagram
/// must be whole records, and what OpenSSL writes is cut into records and packed into datagrams.
enum DTLSRecordLayer {
    /// The record header: type, version, epoch, sequence number, length.
    static let headerLength = 13
    /// The largest record body: 2^14 plus the most compression and cipher expansion allows (RFC 6347 §4.1).
    static let maximumRecordBody = 16_384 + 2_048
    /// The largest datagram the engine reads (the largest UDP payload).
    static let maximumDatagram = 65_507

    /// Why a datagram is not whole DTLS records, or `nil` when it is.
    static func fault(in datagram: [UInt8]) -> String? {
        guard !datagram.isEmpty else { return "an empty datagram" }
        guard datagram.count <= maximumDatagram else { return "a datagram of \(datagram.count) bytes" }
        var offset = 0
        while offset < datagram.count {
            guard datagram.count - offset >= headerLength else {
                return "a record header cut short at byte \(offset)"
            }
            let type = datagram[offset]
            // change_cipher_spec, alert, handshake, application_data (RFC 6347 §4.1; RFC 7983 routes 20...63).
            guard (20...23).contains(type) else { return "content type \(type) at byte \(offset)" }
            guard datagram[offset + 1] == 0xFE, datagram[offset + 2] == 0xFF || datagram[offset + 2] == 0xFD else {
                return "version \(datagram[offset + 1]).\(datagram[offset + 2]) is not DTLS 1.0 or 1.2"
            }
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            guard length <= maximumRecordBody else { return "a record body of \(length) bytes" }
            guard datagram.count - offset - headerLength >= length else {
                return "a record of \(length) bytes cut short at byte \(offset)"
            }
            offset += headerLength + length
        }
        return nil
    }

    /// Cuts what OpenSSL wrote into records (it writes whole records only).
    static func records(in stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var records: [ArraySlice<UInt8>] = []
        var offset = 0
        while stream.count - offset >= headerLength {
            let length = Int(stream[offset + 11]) << 8 | Int(stream[offset + 12])
            let end = min(offset + headerLength + length, stream.count)
            records.append(stream[offset..<end])
            offset = end
        }
        return records
    }

    /// Packs records into datagrams of at most `maximumSize` bytes, in order (RFC 6347 §4.1.1 lets a datagram
    /// carry several); a record larger than that goes alone.
    static func pack(_ records: [ArraySlice<UInt8>], maximumSize: Int) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        for record in records {
            if !current.isEmpty && current.count + record.count > maximumSize {
                datagrams.append(current)
                current = []
            }
            current += record
        }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}
