import Media
import SIPTransport
import Synchronization

/// The I/O half of a stream: socket reads into the session, the timer that advances it, and the session's
/// outputs onto the sockets and to the signalling side.
extension MediaStream {
    /// The largest datagram read (longer ones are truncated); the buffer is a temporary on the loop's stack,
    /// so an idle stream keeps none.
    static let receiveCapacity = 2048

    /// Arms the timer for the session's next deadline, unless one as early is armed already (a timer that
    /// fires early does no harm: the session does what is due and gives the next deadline).
    func arm() {
        guard let deadline = reading({ $0.nextDeadline }) else {
            if let timer { loop.cancelTimer(timer.handle) }
            timer = nil
            return
        }
        if let timer {
            guard timer.deadline > deadline else { return }
            loop.cancelTimer(timer.handle)
        }
        let handle = loop.scheduleTimer(after: max(.zero, deadline - clock.now())) { [weak self] in self?.fire() }
        timer = (handle, deadline)
    }

    private func fire() {
        timer = nil
        guard !reading({ $0.isClosed }) else { return }
        session.advance(to: clock.now(), audio: &audio)
        flush()
        publish()
        arm()
    }

    /// Reads what is waiting on one socket (a bounded batch, so one busy stream cannot starve the loop).
    func read(from port: MediaPort) {
        let socket = port == .rtp ? rtp : rtcpSocket
        withUnsafeTemporaryAllocation(byteCount: Self.receiveCapacity, alignment: 1) { buffer in
            for _ in 0..<(port == .rtp ? 64 : 16) {
                guard let (count, from) = socket.receive(into: buffer) else { return }
                guard count > 0, count <= buffer.count else { continue }
                let datagram = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                session.receive(datagram, from: from, on: port, at: clock.now())
                if ice != nil { drainICE() }
                if !pendingDTLS.isEmpty { drainDTLS() }
            }
        }
        flush()
        arm()
    }

    /// Sends what the session queued and hands its events on.
    func flush() {
        while let transmission = session.nextTransmission() {
            if let ice {
                ice.send(transmission.bytes, to: transmission.destination, from: transmission.port)
                continue
            }
            let socket = transmission.port == .rtp ? rtp : rtcpSocket
            _ = socket.send(transmission.bytes, to: transmission.destination)
        }
        while let event = session.nextEvent() {
            switch event {
            case .dtmf(let digit): events.dtmf(digit.character)
            case .mediaTimeout: events.timedOut()
            // The signalling side acts on neither: the latch is the session's, a BYE is the dialog's to end.
            case .latched, .goodbye: break
            }
        }
    }

    /// Copies the session's figures out for other threads.
    func publish() {
        let statistics = MediaStreamFigures(reading { $0.quality })
        published.withLock { $0 = statistics }
    }
}
