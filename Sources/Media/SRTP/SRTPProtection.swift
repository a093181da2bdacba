/// The packet operations of an SRTP context, written once over the one primitive each implementation
/// supplies: `SRTPContext` (OpenSSL, what media sessions use) and `SRTPSession` (libsrtp2, the cross-check).
public protocol SRTPProtection: AnyObject {
    /// Outbound contexts protect; inbound ones unprotect.
    var direction: SRTPSession.Direction { get }
    /// The most bytes protecting adds to any packet.
    static var maximumTrailerLength: Int { get }
    /// The bytes protecting adds to a packet of this kind (room reserved before protecting).
    func trailerLength(isRTCP: Bool) -> Int
    /// Protects or unprotects `length` bytes at the start of `buffer` in place.
    /// - Returns: the new length.
    /// - Throws: ``SRTPError``; the bytes are unchanged then.
    func process(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool, isProtect: Bool)
        throws(SRTPError) -> Int
}

extension SRTPProtection {
    /// Protects an RTP packet in place (RFC 3711 §3.3): encrypts the payload, appends the MKI (if any) and
    /// the tag.
    /// - Parameter packet: the encoded RTP packet; on return, the SRTP packet.
    /// - Throws: ``SRTPError``; the packet is unchanged then.
    public func protect(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: false, isProtect: true)
    }

    /// Verifies and decrypts an SRTP packet in place (RFC 3711 §3.3), checking the replay window.
    /// - Parameter packet: the received SRTP packet; on return, the RTP packet.
    /// - Throws: ``SRTPError`` with `.authenticationFailed` or `.replayed` for packets to drop (counted); the
    ///   packet is unchanged then.
    public func unprotect(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: false, isProtect: false)
    }

    /// Protects a compound RTCP packet in place (RFC 3711 §3.4): encrypts it after the first 8 bytes and
    /// appends the E flag with the 31-bit SRTCP index, the MKI (if any) and the 80-bit tag.
    /// - Parameter packet: the encoded compound packet; on return, the SRTCP packet.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: true, isProtect: true)
    }

    /// Verifies and decrypts an SRTCP packet in place (RFC 3711 §3.4), checking the replay window.
    /// - Parameter packet: the received SRTCP packet; on return, the compound RTCP packet.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: true, isProtect: false)
    }

    /// Protects or unprotects in a caller's buffer without copying (for a socket's receive buffer).
    /// - Parameters:
    ///   - buffer: the memory; when protecting it needs ``maximumTrailerLength`` bytes of room after `length`.
    ///   - length: the packet's length.
    ///   - isRTCP: SRTCP rather than SRTP.
    /// - Returns: the new length.
    public func transform(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool) throws(SRTPError)
        -> Int
    {
        let isProtect = direction == .outbound
        guard length >= 0, length <= buffer.count,
            !isProtect || buffer.count - length >= Self.maximumTrailerLength
        else {
            throw SRTPError(.bufferTooSmall, "\(buffer.count) bytes of buffer for a \(length)-byte packet")
        }
        return try process(buffer, length: length, isRTCP: isRTCP, isProtect: isProtect)
    }

    private func transform(_ packet: inout [UInt8], isRTCP: Bool, isProtect: Bool) throws(SRTPError) {
        let length = packet.count
        if isProtect { packet.append(contentsOf: repeatElement(0, count: trailerLength(isRTCP: isRTCP))) }
        let result = packet.withUnsafeMutableBytes { buffer -> Result<Int, SRTPError> in
            do throws(SRTPError) {
                return .success(try process(buffer, length: length, isRTCP: isRTCP, isProtect: isProtect))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let newLength):
            if newLength < packet.count { packet.removeSubrange(newLength...) }
        case .failure(let error):
            if isProtect { packet.removeSubrange(length...) }
            throw error
        }
    }
}
