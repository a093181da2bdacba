// The Interop suite's "app woken by a push" (issue 18), built on Switchboard's public API only, as an iOS
// app would use it: it starts suspended (no registration, no flow), and each line on stdin is one push
// payload (`key=value&key=value`, values percent-encoded) that the suite's stand-in push service delivers.
// For each it calls `reportPushPayload`, which reports the call, registers again and waits for the INVITE.
//
//   push-app --user bob@127.0.0.1 --registrar sip:127.0.0.1:5460 --listen 127.0.0.1:5470
//            --pn-provider apns --pn-prid TOKEN [--answer on-arrival|on-push|never] [--play tone:HZ]
//            [--record FILE.wav] [--duration S] [--invite-timeout S] [--new-token TOKEN] [--registered yes]
//
// `--answer on-push` answers as soon as the push reported the call (the user tapped "answer" before the
// INVITE arrived); `on-arrival` once the INVITE is there; `never` leaves it ringing. `--new-token`
// rotates the push token after the first registration. One event per line on stdout: `registered`,
// `push uuid=...`, `invite uuid=...`, `invite-arrived uuid=...`, `connected uuid=...`,
// `cancelled uuid=... reason=...`, `ended uuid=... reason=...`; it exits after the first call ended.

import Dispatch
import Foundation
import Switchboard
import Synchronization

final class PushApp: CallProviderDelegate {
    let controller: CallController
    let answer: String
    let audio: CallAudio
    let duration: Double
    let finished = DispatchSemaphore(value: 0)
    let registered = DispatchSemaphore(value: 0)
    private let connected = Mutex<Set<UUID>>([])

    init(controller: CallController, answer: String, audio: CallAudio, duration: Double) {
        self.controller = controller
        self.answer = answer
        self.audio = audio
        self.duration = duration
    }

    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func providerDidReset(_ provider: CallProvider) { finished.signal() }

    func take(_ uuid: UUID, on provider: CallProvider) {
        provider.setAudio(audio, for: uuid)
        controller.request(CallTransaction(action: AnswerCallAction(call: uuid))) { error in
            if let error { self.say("answer-failed reason=\"\(error)\"") }
        }
    }

    func provider(_ provider: CallProvider, didReceive invite: CallInvite) {
        say("invite uuid=\(invite.callUUID) call-id=\(invite.callID) from=\(invite.from.value)")
        if answer == "on-push" { take(invite.callUUID, on: provider) }
    }

    func provider(_ provider: CallProvider, inviteDidArrive invite: CallInvite) {
        say(
            "invite-arrived uuid=\(invite.callUUID) call-id=\(invite.callID) codecs=\(invite.offeredCodecs.joined(separator: ","))"
        )
        if answer == "on-arrival" { take(invite.callUUID, on: provider) }
    }

    func provider(_ provider: CallProvider, didCancel invite: CancelledCallInvite) {
        say("cancelled uuid=\(invite.callUUID) reason=\(invite.reason.rawValue)")
    }

    func provider(_ provider: CallProvider, callDidConnect call: Call) {
        connected.withLock { _ = $0.insert(call.uuid) }
        say("connected uuid=\(call.uuid) codec=\(call.codec ?? "none")")
        let uuid = call.uuid
        DispatchQueue.global().asyncAfter(deadline: .now() + duration) {
            self.controller.request(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
        }
    }

    func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {
        let quality = call.quality ?? CallQuality()
        say(
            "ended uuid=\(call.uuid) reason=\(details.reason.rawValue) status=\(details.statusCode ?? 0) "
                + "rx=\(quality.packetsReceived) tx=\(quality.packetsSent)")
        finished.signal()
    }

    func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState) {
        say("registration state=\"\(state)\"")
        if case .registered = state { registered.signal() }
    }
}

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("push-app: \(message)\n".utf8))
    exit(2)
}

/// `--flag value` pairs; exits 2 naming the flag on anything else.
func parseFlags(_ arguments: [String]) -> [String: String] {
    let known: Set<String> = [
        "user", "registrar", "listen", "pn-provider", "pn-prid", "pn-param", "answer", "play", "record",
        "duration", "invite-timeout", "new-token", "registered",
    ]
    var flags: [String: String] = [:]
    var index = 0
    while index < arguments.count {
        let name = String(arguments[index].dropFirst(2))
        guard arguments[index].hasPrefix("--"), known.contains(name), index + 1 < arguments.count else {
            usage("bad argument '\(arguments[index])'")
        }
        flags[name] = arguments[index + 1]
        index += 2
    }
    return flags
}

/// One payload line: `key=value&key=value`, percent-encoded.
func payload(_ line: String) -> [String: String] {
    var values: [String: String] = [:]
    for pair in line.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let key = parts[0].removingPercentEncoding,
            let value = parts[1].removingPercentEncoding
        else { continue }
        values[key] = value
    }
    return values
}

let flags = parseFlags(Array(CommandLine.arguments.dropFirst()))
guard let user = flags["user"], let registrar = flags["registrar"], let listen = flags["listen"],
    let provider = flags["pn-provider"], let token = flags["pn-prid"]
else { usage("--user, --registrar, --listen, --pn-provider and --pn-prid are required") }
let input: CallAudio.Input =
    if let play = flags["play"], play.hasPrefix("tone:"), let hz = Double(play.dropFirst(5)) {
        .tone(frequency: hz)
    } else {
        .silence
    }
let audio = CallAudio(input: input, output: flags["record"].map { .file(path: $0) } ?? .discard)
var configuration = CallProviderConfiguration(
    localizedName: "push-app",
    accounts: [
        Account(
            addressOfRecord: "sip:\(user)", id: "app", registrar: registrar, registersOnStart: false,
            push: PushRegistration(
                provider: PushRegistration.Provider(provider), deviceToken: token, parameter: flags["pn-param"]))
    ],
    listeners: [.init(.udp, listen)], codecs: [.pcmu])
configuration.pushInviteTimeout = .seconds(Int(flags["invite-timeout"] ?? "") ?? 20)
configuration.mediaPorts = 17_600...17_699

let callProvider: CallProvider
do {
    callProvider = try CallProvider(configuration: configuration)
} catch {
    usage("cannot start: \(error)")
}
let app = PushApp(
    controller: CallController(provider: callProvider), answer: flags["answer"] ?? "on-arrival", audio: audio,
    duration: Double(flags["duration"] ?? "") ?? 3)
callProvider.setDelegate(app, queue: nil)
app.say("suspended listen=\(listen)")

// The stand-in push service writes one payload per line.
Thread.detachNewThread {
    while let line = readLine() {
        let values = payload(line)
        guard !values.isEmpty else { continue }
        let uuid = callProvider.reportPushPayload(values)
        app.say("push uuid=\(uuid) type=\(values["type"] ?? "call")")
    }
}

// The OS rotates the token once the app is registered.
if let newToken = flags["new-token"] {
    Thread.detachNewThread {
        guard app.registered.wait(timeout: .now() + 20) == .success else { return }
        do {
            try callProvider.updatePushToken(
                PushRegistration(
                    provider: PushRegistration.Provider(provider), deviceToken: newToken, parameter: flags["pn-param"]),
                for: "app")
            app.say("token-rotated")
        } catch {
            app.say("token-rotation-failed reason=\"\(error)\"")
        }
    }
}
if flags["registered"] == "yes" { try? callProvider.register(account: "app") }

// Ends after the first call, or after 60 s without one.
_ = app.finished.wait(timeout: .now() + 60)
Thread.sleep(forTimeInterval: 0.5)
callProvider.invalidate(timeout: .seconds(3))
exit(0)
