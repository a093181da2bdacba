import SIPTransport

/// Command-line options of `sb-endpoint` (hand-written parsing; `--flag value` or `--flag=value`).
struct Options {
    var mode = ""
    var listens: [(TransportProtocol, SocketAddress)] = []
    var t1Milliseconds = 500
    var inviteStatus = 486
    var duration: Double?
    var target: String?
    var transport: TransportProtocol?
    var method = "OPTIONS"
    var count = 1
    var rate: Double = 0
    var concurrency = 16
    var trustedCA: String?
    var certificate: String?
    var privateKey: String?
    var serverName: String?
    var expect: Set<Int> = []
    var minimumSuccessPercent: Double = 100
    var user = "switchboard"

    static let usage = """
        usage: sb-endpoint uas --listen udp|tcp|tls:ADDR:PORT ... [--t1-ms MS] [--invite-status CODE] [--duration S]
                               [--certificate FILE --private-key FILE]
               sb-endpoint uac --target SIPURI [--transport udp|tcp|tls] [--method OPTIONS|MESSAGE|INVITE|REGISTER]
                               [--count N] [--rate PER_SECOND] [--concurrency N] [--t1-ms MS] [--listen ...]
                               [--tls-ca FILE] [--server-name NAME] [--expect CODE,...] [--min-success PERCENT]
               sb-endpoint sdp --help    (the SDP-only media mode: offer and answer through files)
        The interop suite's endpoint. The UAS answers OPTIONS, MESSAGE and BYE with 200 and INVITE with
        --invite-status; the UAC runs --count transactions and prints a summary line.
        """

    struct Failure: Error { var message: String }

    static func parse(_ arguments: [String]) throws(Failure) -> Options {
        var options = Options()
        guard let mode = arguments.first, mode == "uas" || mode == "uac" else { throw Failure(message: usage) }
        options.mode = mode
        var i = 1
        func value(_ name: String) throws(Failure) -> String {
            guard i < arguments.count else { throw Failure(message: "\(name) needs a value") }
            defer { i += 1 }
            return arguments[i]
        }
        while i < arguments.count {
            var flag = arguments[i]
            i += 1
            var inline: String?
            if let eq = flag.firstIndex(of: "=") {
                inline = String(flag[flag.index(after: eq)...])
                flag = String(flag[..<eq])
            }
            func next() throws(Failure) -> String {
                if let inline { return inline }
                return try value(flag)
            }
            switch flag {
            case "--listen":
                let text = try next()
                guard let colon = text.firstIndex(of: ":"),
                    let transport = TransportProtocol(token: String(text[..<colon])),
                    let address = SocketAddress(parsing: String(text[text.index(after: colon)...]), defaultPort: 0)
                else { throw Failure(message: "bad --listen \(text)") }
                options.listens.append((transport, address))
            case "--t1-ms": options.t1Milliseconds = try Int(next()).orFail("--t1-ms")
            case "--invite-status": options.inviteStatus = try Int(next()).orFail("--invite-status")
            case "--duration": options.duration = try Double(next()).orFail("--duration")
            case "--target": options.target = try next()
            case "--transport": options.transport = try TransportProtocol(token: next()).orFail("--transport")
            case "--method": options.method = try next().uppercased()
            case "--count": options.count = try Int(next()).orFail("--count")
            case "--rate": options.rate = try Double(next()).orFail("--rate")
            case "--concurrency": options.concurrency = try Int(next()).orFail("--concurrency")
            case "--tls-ca": options.trustedCA = try next()
            case "--certificate": options.certificate = try next()
            case "--private-key": options.privateKey = try next()
            case "--server-name": options.serverName = try next()
            case "--user": options.user = try next()
            case "--min-success": options.minimumSuccessPercent = try Double(next()).orFail("--min-success")
            case "--expect":
                options.expect = Set(
                    try next().split(separator: ",").map { s throws(Failure) in
                        try Int(s).orFail("--expect")
                    })
            default: throw Failure(message: "unknown flag '\(flag)'\n\(usage)")
            }
        }
        return options
    }
}

extension Optional {
    func orFail(_ flag: String) throws(Options.Failure) -> Wrapped {
        guard let self else { throw Options.Failure(message: "bad value for \(flag)") }
        return self
    }
}
