extension SIPTransportLayer {
    /// Whether a datagram on a SIP UDP socket is STUN rather than SIP: its first byte is 0...3 (RFC 7983
    /// §7; RFC 5626 §4.4.2 puts STUN keep-alives on the SIP flow). A SIP message starts with a letter.
    static func isSTUN(_ bytes: [UInt8]) -> Bool { bytes.count >= 20 && bytes[0] < 4 }

    /// Hands a STUN datagram to every observer, in the order they were added.
    func deliverSTUN(_ bytes: [UInt8], from source: SocketAddress) {
        statistics.stunDatagramsReceived += 1
        for key in stunObservers.keys.sorted() { stunObservers[key]?(bytes, source) }
    }

    /// Calls `observer` with every STUN datagram that arrives on the SIP UDP sockets, and its source (the
    /// responses to `sendSTUN`). Returns a key for `removeSTUNObserver`.
    package func addSTUNObserver(_ observer: @escaping (_ bytes: [UInt8], _ source: SocketAddress) -> Void) -> Int {
        nextSTUNObserver += 1
        stunObservers[nextSTUNObserver] = observer
        return nextSTUNObserver
    }

    package func removeSTUNObserver(_ key: Int) { stunObservers[key] = nil }

    /// Sends a STUN message to `address` from the SIP UDP socket of its address family, the socket
    /// REGISTERs leave from (RFC 5626 §4.4.2: the keep-alive shares the flow's 5-tuple). Not traced as SIP.
    /// - Throws: `TransportError` when there is no UDP socket of that family or the send fails.
    package func sendSTUN(_ bytes: [UInt8], to address: SocketAddress) throws(TransportError) {
        guard let listener = udpListeners.first(where: { $0.address.family == address.family }) else {
            throw TransportError(.notListening, "no UDP listener for \(address.family)")
        }
        let failure = bytes.withUnsafeBytes { raw -> TransportError? in
            do throws(TransportError) {
                try listener.channel.send(raw, to: address)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        statistics.stunDatagramsSent += 1
    }
}
