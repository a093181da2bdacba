import Dispatch
import Foundation
import Switchboard

/// The media flags of `call` and `answer` (CLI.md): what to play and record, and the script a connected
/// call follows (`--dtmf`, `--hold-after`/`--hold-for`).
struct CallMedia: Sendable {
    var input: CallAudio.Input = .silence
    var recordPattern: String?
    var digits: String?
    var holdAfter: Double?
    var holdFor: Double = 2
    /// `--media off`: no RTP is opened, so a call's audio needs no setting.
    var isOff = false

    init(_ options: AccountOptions) throws(UsageError) {
        if let play = options["play"] {
            if play == "silence" {
                input = .silence
            } else if play.hasPrefix("tone:") {
                guard let hertz = Double(play.dropFirst(5)), hertz > 0, hertz < 24_000 else {
                    throw UsageError(message: "bad value for --play: \(play) (tone:HZ, 0 < HZ < 24000)")
                }
                input = .tone(frequency: hertz)
            } else {
                guard FileManager.default.isReadableFile(atPath: play) else {
                    throw UsageError(message: "bad value for --play: cannot read \(play)")
                }
                input = .file(path: play, loops: true)
            }
        }
        recordPattern = options["record"]
        isOff = options["media"] == "off"
        if let text = options["dtmf"] {
            guard !text.isEmpty, text.allSatisfy({ "0123456789*#ABCDabcd".contains($0) }) else {
                throw UsageError(message: "bad value for --dtmf: \(text) (digits 0-9 * # A-D)")
            }
            digits = text
        }
        if let text = options["hold-after"] {
            guard let value = Double(text), value >= 0 else {
                throw UsageError(message: "bad value for --hold-after: \(text)")
            }
            holdAfter = value
        }
        if let text = options["hold-for"] {
            guard let value = Double(text), value >= 0 else {
                throw UsageError(message: "bad value for --hold-for: \(text)")
            }
            holdFor = value
        }
        // Checked here, before anything starts; ProviderHarness.makeConfiguration applies it.
        _ = try options.rtpPorts
        _ = try options.mediaTimeout(default: nil)
    }

    /// The audio of call number `number` (1-based): `%n` in `--record` becomes the number.
    func audio(callNumber number: Int) -> CallAudio {
        let output: CallAudio.Output =
            recordPattern.map { .file(path: $0.replacingOccurrences(of: "%n", with: String(number))) } ?? .discard
        return CallAudio(input: input, output: output)
    }

    /// The audio of the call a transfer placed in place of call number `number`: the same input; recorded
    /// to `%n` = `number + 1` when `--record` has `%n`, else not recorded (the transferred call's recording
    /// is still open on the one path).
    func audio(transferredFrom number: Int) -> CallAudio {
        guard recordPattern?.contains("%n") == true else { return CallAudio(input: input, output: .discard) }
        return audio(callNumber: number + 1)
    }

    /// Runs the script of a connected call: digits 1 s after audio starts (100 ms tone, 100 ms gap, one
    /// `dtmf-sent` line each as it goes out), and hold then resume.
    func runScript(for call: UUID, controller: CallController, printer: EventPrinter) {
        let queue = commandTimers
        if let digits {
            let step = 0.2
            queue.asyncAfter(deadline: .now() + 1) {
                controller.request(CallTransaction(action: PlayDTMFCallAction(call: call, digits: digits))) { error in
                    if let error { printer.emit("dtmf-failed", [("reason", .string("\(error)"))]) }
                }
                for (index, digit) in digits.enumerated() {
                    queue.asyncAfter(deadline: .now() + step * Double(index)) {
                        printer.emit("dtmf-sent", [("digit", .string(String(digit)))])
                    }
                }
            }
        }
        if let holdAfter {
            let holdFor = self.holdFor
            queue.asyncAfter(deadline: .now() + holdAfter) {
                controller.request(CallTransaction(action: SetHeldCallAction(call: call, onHold: true))) { error in
                    guard error == nil else { return }
                    printer.emit("held")
                    queue.asyncAfter(deadline: .now() + holdFor) {
                        controller.request(CallTransaction(action: SetHeldCallAction(call: call, onHold: false))) {
                            error in
                            if error == nil { printer.emit("resumed") }
                        }
                    }
                }
            }
        }
    }
}
