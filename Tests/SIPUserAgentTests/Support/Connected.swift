import SIPMessage

@testable import SIPUserAgent

extension Harness {
    /// Alice calls Bob and Bob answers at once; both sessions are confirmed when it returns.
    static func connected(
        configure: (Harness) -> Void = { _ in }
    ) -> Harness {
        let net = Harness("alice", "bob")
        configure(net)
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        return net
    }

    /// The number of requests of `method` each agent sent.
    func count(_ method: SIPMethod, from name: String) -> Int { self[name].sent(method).count }
}
