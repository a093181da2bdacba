import Foundation

/// Where a command writes and reads; the real process uses stdout/stderr/files, tests capture them.
struct CommandIO: Sendable {
    var output: @Sendable (String) -> Void
    var error: @Sendable (String) -> Void
    var readFile: @Sendable (String) -> [UInt8]?

    static let standard = CommandIO(
        output: { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        },
        error: { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        },
        readFile: { path in
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return [UInt8](data)
        })
}

/// The `switchboard` command line (CLI.md).
enum SwitchboardCommand {
    static let version = "0.1.0"

    static let help = """
        usage: switchboard <command> [flags]

        Switchboard: a SIP user agent and signalling stack in Swift.

        commands:
          parse FILE...   print the message layer's verdict on SIP messages in files
          register        register to a registrar, stay registered, unregister
          call URI        place a call, stay connected, hang up
          answer          wait for calls and answer them
          load URI        place many calls at a rate (a load generator)
          demo            a complete call between two agents in this process (no server)

        switchboard <command> --help    help for one command
        switchboard --version           print the version
        """

    static func run(
        _ arguments: [String], io: CommandIO = .standard,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        guard let command = arguments.first else {
            io.error(help)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help":
            io.output(help)
            return 0
        case "--version":
            io.output("switchboard \(version)")
            return 0
        case "parse":
            return ParseCommand.run(rest, io: io)
        case "register":
            return RegisterCommand.run(rest, io: io, environment: environment)
        case "call":
            return CallCommand.run(rest, io: io, environment: environment)
        case "answer":
            return AnswerCommand.run(rest, io: io, environment: environment)
        case "load":
            return LoadCommand.run(rest, io: io, environment: environment)
        case "demo":
            return DemoCommand.run(rest, io: io)
        default:
            io.error("switchboard: unknown command '\(command)'\n\(help)")
            return 2
        }
    }
}
