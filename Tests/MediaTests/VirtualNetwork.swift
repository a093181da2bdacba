import Media

/// Two media sessions back to back in virtual time: every datagram one sends reaches the other after
/// `latency`, unless `intercept` drops or changes it; timers fire exactly at their deadlines.
struct VirtualNetwork {
    var endpoints: [Endpoint]
    var now = MediaInstant.zero
    var latency = Duration.milliseconds(30)
    /// Sees each datagram as it is sent; returns false to drop it.
    var intercept: (inout Flight) -> Bool = { _ in true }
    /// The source address an endpoint's packets show to the other (a NAT), by index.
    var publicAddress: [Int: String] = [:]
    /// Every datagram delivered, in order.
    private(set) var delivered: [Flight] = []
    /// Datagrams to an address nobody has.
    private(set) var undeliverable = 0
    private var inFlight: [Flight] = []

    init(_ first: Endpoint, _ second: Endpoint) { endpoints = [first, second] }

    /// Runs until `end`: deliveries, then timers, then the outputs, in time order.
    mutating func run(until end: MediaInstant) {
        while let next = nextTime(), next <= end {
            now = next
            while let flight = inFlight.first, flight.arrival <= now {
                inFlight.removeFirst()
                deliver(flight)
            }
            for index in endpoints.indices {
                if let deadline = endpoints[index].session.nextDeadline, deadline <= now {
                    var audio = endpoints[index].audio
                    endpoints[index].audio = TestAudio()
                    endpoints[index].session.advance(to: now, audio: &audio)
                    endpoints[index].audio = audio
                }
                drain(index)
            }
        }
        now = max(now, end)
    }

    /// Runs `duration` more.
    mutating func run(for duration: Duration) { run(until: now + duration) }

    /// Hands an endpoint's outputs to the network and its events to the test.
    mutating func drain(_ index: Int) {
        while let transmission = endpoints[index].session.nextTransmission() {
            let own = transmission.port == .rtp ? endpoints[index].rtpAddress : endpoints[index].rtcpAddress
            let source = transmission.port == .rtp ? publicAddress[index] ?? own : own
            var flight = Flight(
                arrival: now + latency, bytes: transmission.bytes, source: source,
                destination: transmission.destination, sender: index)
            guard intercept(&flight) else { continue }
            let position = inFlight.firstIndex { $0.arrival > flight.arrival } ?? inFlight.endIndex
            inFlight.insert(flight, at: position)
        }
        while let event = endpoints[index].session.nextEvent() { endpoints[index].events.append((now, event)) }
    }

    private func nextTime() -> MediaInstant? {
        let deadlines = endpoints.compactMap(\.session.nextDeadline) + inFlight.prefix(1).map(\.arrival)
        return deadlines.min()
    }

    private mutating func deliver(_ flight: Flight) {
        for index in endpoints.indices {
            let endpoint = endpoints[index]
            let port: MediaPort
            if flight.destination == endpoint.rtpAddress || flight.destination == publicAddress[index] {
                port = .rtp
            } else if flight.destination == endpoint.rtcpAddress {
                port = .rtcp
            } else {
                continue
            }
            delivered.append(flight)
            endpoints[index].session.receive(flight.bytes, from: flight.source, on: port, at: now)
            drain(index)
            return
        }
        undeliverable += 1
    }
}
