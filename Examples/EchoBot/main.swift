// An echo bot built on Switchboard's public API only, as an outside tool would use it: it registers (or
// just listens), answers every call, plays each caller's audio back to them about 200 ms later and repeats
// their DTMF digits. Flags mirror the `switchboard` CLI's:
//
//   echo-bot --listen 127.0.0.1:5080 [--user bot@example.com --password ... --registrar sip:example.com]
//            [--transport udp|tcp|tls] [--codecs opus,pcmu,pcma] [--srtp off|optional|mandatory] [--count N]
//
// It prints one line per event on stdout and exits 0 after --count calls or on SIGINT/SIGTERM.

import Dispatch
import Foundation
import Switchboard
import Synchronization

/// The audio of one call, waiting to be sent back: the callback sink appends, the callback source takes.
final class EchoLine: Sendable {
    private let buffer = Mutex<[Int16]>([])
    /// At most one second at 16 kHz waits; older audio is dropped.
    private let capacity = 16_000
    /// Audio is echoed once this much has gathered (200 ms), so the caller hears it as an echo.
    private let delay = 3_200
    private let started = Mutex(false)

    func heard(_ frame: [Int16]) {
        buffer.withLock { samples in
            samples.append(contentsOf: frame)
            if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        }
    }

    func next(_ count: Int) -> [Int16]? {
        buffer.withLock { samples in
            let ready = started.withLock { begun in
                if !begun, samples.count >= delay { begun = true }
                return begun
            }
            guard ready, samples.count >= count else { return nil }
            let frame = Array(samples.prefix(count))
            samples.removeFirst(count)
            return frame
        }
    }
}

final class EchoBot: CallProviderDelegate {
    let controller: CallController
    let limit: Int?
    let finished = DispatchSemaphore(value: 0)
    private let counts = Mutex((answered: 0, ended: 0, failed: 0))

    init(controller: CallController, limit: Int?) {
        self.controller = controller
        self.limit = limit
    }

    var failures: Int { counts.withLock { $0.failed } }

    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func providerDidReset(_ provider: CallProvider) { finished.signal() }

    func provider(_ provider: CallProvider, didReceive invite: CallInvite) {
        say("incoming from=\(invite.from.value) call-id=\(invite.callID)")
        let line = EchoLine()
        provider.setAudio(
            CallAudio(
                input: .samples { count in line.next(count) }, output: .samples { frame in line.heard(frame) },
                sampleRate: 16_000),
            for: invite.callUUID)
        controller.request(CallTransaction(action: AnswerCallAction(call: invite.callUUID))) { error in
            if let error { self.say("answer-failed reason=\"\(error)\"") }
        }
    }

    func provider(_ provider: CallProvider, callDidConnect call: Call) {
        counts.withLock { $0.answered += 1 }
        say("connected codec=\(call.codec ?? "none") srtp=\(call.isSecure ? "yes" : "no")")
    }

    func provider(_ provider: CallProvider, call: Call, didReceiveDTMF digit: Character) {
        say("dtmf-received digit=\(digit)")
        controller.request(CallTransaction(action: PlayDTMFCallAction(call: call.uuid, digits: String(digit)))) {
            error in
            if error == nil { self.say("dtmf-sent digit=\(digit)") }
        }
    }

    func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {
        let quality = call.quality ?? CallQuality()
        say(
            "ended reason=\(details.reason.rawValue) status=\(details.statusCode ?? 0) rx=\(quality.packetsReceived) "
                + "tx=\(quality.packetsSent)")
        let done = counts.withLock { counts -> Bool in
            counts.ended += 1
            if call.connectedAt == nil { counts.failed += 1 }
            return limit.map { counts.ended >= $0 } ?? false
        }
        if done { finished.signal() }
    }

    func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState) {
        say("registration account=\(account) state=\(state)")
    }
}

/// `--flag value` or `--flag=value`; exits 2 naming the flag on anything else.
func parseFlags(_ arguments: [String]) -> [String: String] {
    let known: Set<String> = ["listen", "user", "password", "registrar", "transport", "codecs", "srtp", "count"]
    var flags: [String: String] = [:]
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        guard argument.hasPrefix("--") else { usage("unexpected argument '\(argument)'") }
        var name = String(argument.dropFirst(2))
        var value: String?
        if let equals = name.firstIndex(of: "=") {
            value = String(name[name.index(after: equals)...])
            name = String(name[..<equals])
        }
        if name == "help" { usage(nil) }
        guard known.contains(name) else { usage("unknown flag --\(name)") }
        if value == nil {
            index += 1
            guard index < arguments.count else { usage("--\(name) needs a value") }
            value = arguments[index]
        }
        flags[name] = value
        index += 1
    }
    return flags
}

func usage(_ problem: String?) -> Never {
    let text = """
        usage: echo-bot [--listen ADDR:PORT] [--user USER@DOMAIN --password P --registrar SIPURI]
                        [--transport udp|tcp|tls] [--codecs opus,pcmu,pcma] [--srtp off|optional|mandatory] [--count N]
        """
    if let problem {
        FileHandle.standardError.write(Data("echo-bot: \(problem)\n\(text)\n".utf8))
        exit(2)
    }
    print(text)
    exit(0)
}

let flags = parseFlags(Array(CommandLine.arguments.dropFirst()))
var configuration = CallProviderConfiguration(localizedName: "Switchboard echo bot")
/// `value` parsed by `make`, or exit 2 naming the flag.
func parsed<T>(_ name: String, _ make: (String) -> T?) -> T? {
    guard let text = flags[name] else { return nil }
    guard let value = make(text) else { usage("bad value for --\(name): \(text)") }
    return value
}

let transport = parsed("transport") { SIPTransportKind(rawValue: $0) }
if let listen = flags["listen"] {
    configuration.listeners = [.init(transport ?? .udp, listen)]
    if let transport, transport != .udp { configuration.listeners.append(.init(.udp, listen)) }
}
if let codecs = parsed(
    "codecs",
    { text -> [Codec]? in
        let list = text.split(separator: ",").compactMap { Codec(rawValue: String($0)) }
        return list.isEmpty ? nil : list
    })
{
    configuration.codecs = codecs
}
if let srtp = parsed("srtp", { SRTPPolicy(rawValue: $0) }) { configuration.srtp = srtp }
let limit = parsed("count") { Int($0) }
if let user = flags["user"] {
    let host = flags["registrar"].flatMap { URL(string: $0.replacingOccurrences(of: "sip:", with: "sip://"))?.host }
    let aor = user.contains("@") ? "sip:\(user)" : "sip:\(user)@\(host ?? "127.0.0.1")"
    let password = flags["password"] ?? ProcessInfo.processInfo.environment["SWITCHBOARD_PASSWORD"]
    configuration.accounts = [
        Account(
            addressOfRecord: aor, credentials: password.map { .password($0) } ?? .none, registrar: flags["registrar"],
            transport: transport, registersOnStart: flags["registrar"] != nil)
    ]
}

let provider: CallProvider
do {
    provider = try CallProvider(configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("echo-bot: \(error)\n".utf8))
    exit(1)
}
let bot = EchoBot(controller: CallController(provider: provider), limit: limit)
provider.setDelegate(bot, queue: nil)
for listener in provider.listeners { bot.say("listening on=\(listener)") }

// Kept for the life of the process: a released dispatch source stops delivering signals.
let signalSources = [SIGINT, SIGTERM].map { signalNumber in
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler { bot.finished.signal() }
    source.resume()
    return source
}
bot.finished.wait()
signalSources.forEach { $0.cancel() }
provider.invalidate(timeout: .seconds(3))
exit(bot.failures == 0 ? 0 : 1)
