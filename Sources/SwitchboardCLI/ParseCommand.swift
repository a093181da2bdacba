import SIPMessage

/// `switchboard parse [--stream] FILE...`: the message layer's verdict on captured messages (CLI.md).
enum ParseCommand {
    static let flags = [
        FlagSpec(
            name: "stream", valueName: nil, help: "frame the files as a TCP/TLS byte stream, not one datagram each"),
        FlagSpec(name: "help", valueName: nil, help: "show this help"),
    ]

    static let help = helpText(
        usage: "switchboard parse [--stream] FILE...",
        summary: """
            Parses each file as a SIP message and prints one verdict line per message:
              FILE: accept request METHOD | accept response CODE | reject CODE PHRASE | drop REASON
            and with --stream also: incomplete need=BYTES | close REASON.
            FILE#N numbers the messages when a file holds several.
            Exit status: 0 when every file was read (a verdict is output, not a failure), 2 otherwise.
            """,
        flags: flags)

    static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try parseArguments(arguments, specs: flags)
        } catch {
            io.error("switchboard parse: \(error.message)")
            return 2
        }
        if parsed.has("help") {
            io.output(help)
            return 0
        }
        guard !parsed.positionals.isEmpty else {
            io.error("switchboard parse: no FILE given\n\(help)")
            return 2
        }
        var status: Int32 = 0
        for path in parsed.positionals {
            guard let bytes = io.readFile(path) else {
                io.error("switchboard parse: \(path): cannot read the file")
                status = 2
                continue
            }
            let verdicts = parsed.has("stream") ? streamVerdicts(bytes) : [datagramVerdict(bytes)]
            for (i, verdict) in verdicts.enumerated() {
                io.output(verdicts.count > 1 ? "\(path)#\(i + 1): \(verdict)" : "\(path): \(verdict)")
            }
        }
        return status
    }

    /// The capabilities the verdicts assume: a user agent supporting sip, sips and tel URIs, no option tags
    /// yet, and the body types in `Capabilities.defaultBodyTypes`.
    static let capabilities = Capabilities()

    static func datagramVerdict(_ bytes: [UInt8]) -> String {
        do {
            let message = try Message(parsing: bytes)
            return verdict(for: message)
        } catch {
            return verdict(for: error)
        }
    }

    static func streamVerdicts(_ bytes: [UInt8]) -> [String] {
        var framer = StreamFramer()
        framer.append(bytes)
        var verdicts: [String] = []
        // Every iteration consumes bytes or ends the loop; the bound is a second guard against a framer bug.
        var budget = bytes.count + 2
        loop: while budget > 0, let output = framer.next() {
            budget -= 1
            switch output {
            case .message(let message): verdicts.append(verdict(for: message))
            case .invalid(let error): verdicts.append(verdict(for: error))
            case .ping, .pong: continue
            case .needMore(let minimum):
                verdicts.append("incomplete need=\(minimum)")
                break loop
            case .close(let error):
                verdicts.append("close \(error.reasonPhrase)")
                break loop
            }
        }
        if verdicts.isEmpty { verdicts.append("drop empty stream") }
        return verdicts
    }

    static func verdict(for message: Message) -> String {
        do {
            try message.validate(capabilities: capabilities)
        } catch {
            return verdict(for: error)
        }
        switch message {
        case .request(let request): return "accept request \(printable(request.method.rawValue))"
        case .response(let response): return "accept response \(response.statusCode)"
        }
    }

    static func verdict(for error: MessageError) -> String {
        if let status = error.status { return "reject \(status) \(printable(error.reasonPhrase))" }
        return "drop \(printable(error.reasonPhrase))"
    }

    /// Keeps a verdict on one line whatever bytes the input held.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
