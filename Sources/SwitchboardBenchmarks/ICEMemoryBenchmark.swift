import CAllocationCounter
import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization

// `--only ice-memory`: the heap a call holds with ICE on beside ICE off (issue 14), in process: two providers in a
// virtual world (no sockets), `calls` calls at once from one to the other, all connected, their media running
// for `seconds` (consent checks come every 4-6 s); the heap in use (mallinfo2) after, less before, over the
// calls. Both ends count: the figure is per call, caller and callee together. ICE on here means host candidates
// (no STUN or TURN server in the world), so it counts the agent, the driver, the candidates and the longer SDP,
// not a TURN client.

/// Answers every invite.
private final class Answerer: CallProviderDelegate, Sendable {
    let controller = Mutex<CallController?>(nil)

    func providerDidReset(_ provider: CallProvider) {}
    func provider(_ provider: CallProvider, didReceive invite: CallInvite) {
        let controller = self.controller.withLock { $0 }
        controller?.request(CallTransaction(action: AnswerCallAction(call: invite.callUUID))) { _ in }
    }
}

/// Counts connected calls.
private final class Counter: CallProviderDelegate, Sendable {
    let connected = Atomic<Int>(0)

    func providerDidReset(_ provider: CallProvider) {}
    func provider(_ provider: CallProvider, callDidConnect call: Call) { connected.add(1, ordering: .relaxed) }
}

/// Heap bytes per call (both ends) with `policy`, or nil when the calls did not all connect.
private func heapPerCall(calls: Int, policy: ICEPolicy, seconds: Double) -> Double? {
    let world = VirtualWorld(seed: 5)
    // The network's trace would keep every datagram: not the calls' memory.
    world.network.recordLimit = 1
    func configuration(_ user: String) -> CallProviderConfiguration {
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:\(user)@example.com")], listeners: [.init(.udp, "0.0.0.0:5060")],
            maximumCalls: calls * 2)
        configuration.codecs = [.pcmu]
        configuration.icePolicy = policy
        return configuration
    }
    guard let alice = try? world.makeProvider(configuration: configuration("alice"), host: "10.0.0.1"),
        let bob = try? world.makeProvider(configuration: configuration("bob"), host: "10.0.0.2")
    else { return nil }
    let answerer = Answerer()
    answerer.controller.withLock { $0 = CallController(provider: bob) }
    bob.setDelegate(answerer, queue: nil)
    let counter = Counter()
    alice.setDelegate(counter, queue: nil)
    let controller = CallController(provider: alice)
    world.advance(by: .milliseconds(100))
    let before = Int(switchboard_heap_in_use())
    for _ in 0..<calls {
        let start = StartCallAction(call: UUID(), handle: Handle(type: .generic, value: "sip:bob@10.0.0.2:5060"))
        controller.request(CallTransaction(action: start)) { _ in }
    }
    let all = world.run(until: { counter.connected.load(ordering: .relaxed) == calls }, within: .seconds(60))
    world.advance(by: .milliseconds(Int64(seconds * 1000)))
    let after = Int(switchboard_heap_in_use())
    alice.invalidate(timeout: .seconds(5))
    bob.invalidate(timeout: .seconds(5))
    return all ? Double(after - before) / Double(calls) : nil
}

func runICEMemoryBenchmark(calls: Int, repetitions: Int, seconds: Double) {
    print(
        "# switchboard ICE memory benchmark: \(calls) calls at once for \(seconds) s, both ends, host candidates, G.711"
    )
    print("# columns: RESULT ice-memory policy min_bytes_per_call med_bytes_per_call max_bytes_per_call")
    for policy in [ICEPolicy.off, .on] {
        var samples: [Double] = []
        for _ in 0..<repetitions {
            guard let figure = heapPerCall(calls: calls, policy: policy, seconds: seconds) else {
                FileHandle.standardError.write(Data("ice-memory: the calls did not all connect\n".utf8))
                exit(1)
            }
            samples.append(figure)
        }
        let m = Measurement(samples: samples)
        print(
            [
                "RESULT", "ice-memory", policy.rawValue, String(format: "%.0f", m.min),
                String(format: "%.0f", m.median), String(format: "%.0f", m.max),
            ].joined(separator: "\t"))
    }
}
