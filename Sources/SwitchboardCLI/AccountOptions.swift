import Foundation
import Switchboard

/// The account and transport flags shared by `register`, `call` and `answer` (CLI.md "Accounts and
/// transport"), with `--config FILE` (`key = value` lines, `#` comments) and the precedence flag >
/// environment (`SWITCHBOARD_<KEY>`, e.g. `SWITCHBOARD_PASSWORD`) > file.
struct AccountOptions {
    static let flags: [FlagSpec] = [
        FlagSpec(name: "user", valueName: "USER[@DOMAIN]", help: "the address of record (alice@example.com)"),
        FlagSpec(name: "auth-user", valueName: "NAME", help: "authentication user name (default: the user part)"),
        FlagSpec(name: "password", valueName: "SECRET", help: "password (or SWITCHBOARD_PASSWORD)"),
        FlagSpec(name: "registrar", valueName: "SIPURI", help: "registrar (sip:example.com)"),
        FlagSpec(name: "proxy", valueName: "SIPURI", help: "outbound proxy"),
        FlagSpec(
            name: "transport", valueName: "udp|tcp|tls|ws|wss", help: "transport (a URI's transport parameter wins)"),
        FlagSpec(
            name: "ws-url", valueName: "URL",
            help: "WebSocket server every request goes through (ws://host:port/path, wss://...; RFC 7118)"),
        FlagSpec(name: "tls-ca", valueName: "FILE", help: "trusted CA certificates (PEM) for TLS"),
        FlagSpec(
            name: "pn-provider", valueName: "apns|fcm|NAME",
            help: "push service for the registration Contact (RFC 8599), with --pn-prid"),
        FlagSpec(
            name: "pn-prid", valueName: "TOKEN", help: "push device token (never printed; or SWITCHBOARD_PN_PRID)"),
        FlagSpec(name: "pn-param", valueName: "VALUE", help: "push service parameter (APNs: TEAMID.bundle.voip)"),
        FlagSpec(name: "tls-cert", valueName: "FILE", help: "certificate chain (PEM) to listen on TLS"),
        FlagSpec(name: "tls-key", valueName: "FILE", help: "private key (PEM) of --tls-cert"),
        FlagSpec(
            name: "listen", valueName: "ADDR:PORT",
            help:
                "local address (default port 5060, 5061 for TLS; :0 = any), ws://ADDR:PORT/PATH, wss://..., or none"),
        FlagSpec(
            name: "stun", valueName: "HOST:PORT", help: "STUN server(s), comma-separated, for ICE (turns ICE on)"),
        FlagSpec(
            name: "turn", valueName: "URI",
            help: "TURN server: turn:HOST:PORT?transport=udp|tcp or turns:HOST:PORT (turns ICE on)"),
        FlagSpec(name: "turn-user", valueName: "NAME", help: "TURN user name"),
        FlagSpec(
            name: "turn-password", valueName: "SECRET",
            help: "TURN password (never printed; or SWITCHBOARD_TURN_PASSWORD)"),
        FlagSpec(
            name: "ice", valueName: "off|on|relay",
            help: "ICE for calls: off, on, or relay (relayed candidates only); on with --stun or --turn"),
        FlagSpec(name: "config", valueName: "FILE", help: "key = value lines with the long flag names"),
        FlagSpec(name: "json", valueName: nil, help: "print events as JSON lines"),
        FlagSpec(name: "trace", valueName: nil, help: "print every SIP message on stderr (Authorization redacted)"),
        FlagSpec(name: "pcap", valueName: "FILE", help: "write the SIP messages (and RTP headers) as a pcap file"),
        FlagSpec(name: "ladder", valueName: "FILE.html", help: "write the call-flow diagram as an HTML page"),
        FlagSpec(name: "duration", valueName: "S", help: "how long to stay registered or connected"),
        FlagSpec(name: "verbose", valueName: nil, help: "log diagnostics on stderr"),
        FlagSpec(name: "help", valueName: nil, help: "show this help"),
    ]

    /// The media flags of `call` and `answer`.
    static let mediaFlags: [FlagSpec] = [
        FlagSpec(name: "codecs", valueName: "LIST", help: "codecs in order of preference (opus,pcmu,pcma)"),
        FlagSpec(name: "srtp", valueName: "off|optional|mandatory", help: "SRTP policy (off)"),
        FlagSpec(
            name: "srtp-keying", valueName: "sdes|dtls",
            help: "how offers key SRTP: a=crypto or a DTLS handshake (DTLS-SRTP); answers take either (sdes)"),
        FlagSpec(
            name: "srtp-suites", valueName: "LIST",
            help:
                "SRTP suites in order of preference (aes-cm-80,aes-cm-32,aes-gcm-128); default: sdes aes-cm-80,aes-cm-32,"
                + " dtls aes-gcm-128 first"),
        FlagSpec(
            name: "webrtc", valueName: nil,
            help: "offer the WebRTC profile: UDP/TLS/RTP/SAVPF with DTLS-SRTP, rtcp-mux, rtcp-rsize, BUNDLE"),
        FlagSpec(name: "play", valueName: "FILE.wav|tone:HZ|silence", help: "the audio to send (a file loops)"),
        FlagSpec(
            name: "record", valueName: "FILE.wav",
            help: "record the audio received (16-bit mono at the codec's rate; %n = call number)"),
        FlagSpec(name: "dtmf", valueName: "DIGITS", help: "send RFC 4733 digits 1 s after audio starts"),
        FlagSpec(name: "hold-after", valueName: "S", help: "hold (re-INVITE) S seconds after connecting"),
        FlagSpec(name: "hold-for", valueName: "S", help: "resume after S seconds on hold (2)"),
        FlagSpec(
            name: "rtp-ports", valueName: "LOW-HIGH",
            help: "local UDP ports for RTP (even) and RTCP (odd), one pair per call (40000-49999)"),
        FlagSpec(
            name: "media-timeout", valueName: "S",
            help: "end a call with BYE when no RTP arrives for S seconds while some is due, or off (off)"),
    ]

    var values: [String: String]

    /// Merges flags, environment and the config file.
    static func resolve(_ parsed: ParsedArguments, environment: [String: String], readFile: (String) -> [UInt8]?)
        throws(UsageError) -> AccountOptions
    {
        var values: [String: String] = [:]
        let known = Set(flags.map(\.name))
        if let path = parsed.flags["config"] {
            guard let bytes = readFile(path) else { throw UsageError(message: "cannot read --config file \(path)") }
            for (number, rawLine) in String(decoding: bytes, as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false
            ).enumerated() {
                var line = Substring(rawLine)
                if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                guard let eq = trimmed.firstIndex(of: "=") else {
                    throw UsageError(message: "--config \(path):\(number + 1): expected key = value")
                }
                let key = trimmed[..<eq].trimmingCharacters(in: .whitespaces)
                let value = trimmed[trimmed.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                values[key] = value
            }
        }
        for (key, value) in environment where key.hasPrefix("SWITCHBOARD_") {
            let name = key.dropFirst("SWITCHBOARD_".count).lowercased().replacingOccurrences(of: "_", with: "-")
            values[name] = value
        }
        for (key, value) in parsed.flags { values[key] = value }
        _ = known
        return AccountOptions(values: values)
    }

    subscript(_ key: String) -> String? { values[key] }
    func has(_ key: String) -> Bool { values[key] != nil && values[key] != "false" }

    var transportKind: SIPTransportKind? {
        get throws(UsageError) {
            guard let text = values["transport"] else { return nil }
            guard let kind = SIPTransportKind(rawValue: text.lowercased()) else {
                throw UsageError(message: "bad value for --transport: \(text)")
            }
            return kind
        }
    }

    var codecs: [Codec] {
        get throws(UsageError) {
            guard let text = values["codecs"] else { return [.opus, .pcmu, .pcma] }
            var list: [Codec] = []
            for name in text.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                guard let codec = Codec(rawValue: trimmed) else {
                    throw UsageError(message: "bad value for --codecs: \(name) (opus, pcmu, pcma)")
                }
                if !list.contains(codec) { list.append(codec) }
            }
            guard !list.isEmpty else { throw UsageError(message: "bad value for --codecs: empty") }
            return list
        }
    }

    var srtp: SRTPPolicy {
        get throws(UsageError) {
            guard let text = values["srtp"] else { return .off }
            guard let policy = SRTPPolicy(rawValue: text.lowercased()) else {
                throw UsageError(message: "bad value for --srtp: \(text)")
            }
            return policy
        }
    }

    var srtpKeying: SRTPKeying {
        get throws(UsageError) {
            guard let text = values["srtp-keying"] else { return .sdes }
            guard let keying = SRTPKeying(rawValue: text.lowercased()) else {
                throw UsageError(message: "bad value for --srtp-keying: \(text) (sdes|dtls)")
            }
            return keying
        }
    }

    /// `--srtp-suites LIST`: the SRTP suites in preference order, `nil` for each keying's default.
    var srtpSuites: [SRTPSuite]? {
        get throws(UsageError) {
            guard let text = values["srtp-suites"] else { return nil }
            let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let known = SRTPSuite.allCases.map(\.rawValue).joined(separator: ",")
            var suites: [SRTPSuite] = []
            for name in names {
                guard let suite = SRTPSuite(rawValue: name) else {
                    throw UsageError(message: "bad value for --srtp-suites: \(name) (\(known))")
                }
                if !suites.contains(suite) { suites.append(suite) }
            }
            guard !suites.isEmpty else { throw UsageError(message: "bad value for --srtp-suites: \(text) (\(known))") }
            return suites
        }
    }

    /// `--rtp-ports LOW-HIGH`: the media port range, `nil` for the default. LOW is even (RTP takes the even
    /// port of each pair, RTCP the odd one above it, RFC 3550 §11), HIGH is above it, both in 1024-65535.
    var rtpPorts: ClosedRange<UInt16>? {
        get throws(UsageError) {
            guard let text = values["rtp-ports"] else { return nil }
            let bad = UsageError(
                message: "bad value for --rtp-ports: \(text) (LOW-HIGH, LOW even, 1024 <= LOW < HIGH <= 65535)")
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2,
                let low = UInt16(parts[0].trimmingCharacters(in: .whitespaces)),
                let high = UInt16(parts[1].trimmingCharacters(in: .whitespaces)),
                low >= 1024, low % 2 == 0, high > low
            else { throw bad }
            return low...high
        }
    }

    /// `--media-timeout S|off`: how long a call may go without RTP while some is due, `nil` for never;
    /// `defaultValue` without the flag.
    func mediaTimeout(default defaultValue: Duration?) throws(UsageError) -> Duration? {
        try timeout("media-timeout", default: defaultValue)
    }

    /// A `--NAME S|off` flag: seconds above 0 (at most a day), `nil` for `off`; `defaultValue` without it.
    func timeout(_ name: String, default defaultValue: Duration?) throws(UsageError) -> Duration? {
        guard let text = values[name] else { return defaultValue }
        if text == "off" { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw UsageError(message: "bad value for --\(name): \(text) (seconds, above 0, or off)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    var proxy: SIPAddress? {
        get throws(UsageError) { try uri("proxy") }
    }

    /// A listener over `transport` on `--listen`-style `text` (the transport's default port when none is
    /// given, every IPv4 address for `:PORT`), or a WebSocket listener on a `ws://ADDR:PORT/PATH` or
    /// `wss://...` URL, whose scheme must agree with `--transport` when that is given.
    func listener(_ text: String, transport: SIPTransportKind?) throws(UsageError)
        -> CallProviderConfiguration.Listener
    {
        let listener: CallProviderConfiguration.Listener
        do throws(CallError) {
            listener =
                text.contains("://")
                ? try CallProviderConfiguration.Listener(url: text)
                : try CallProviderConfiguration.Listener(transport ?? .udp, parsing: text)
        } catch {
            throw UsageError(message: "bad value for --listen: \(text)")
        }
        if let transport, transport != listener.transport {
            throw UsageError(message: "bad value for --listen: \(text) is not a \(transport) URL")
        }
        return listener
    }

    /// `--ws-url URL`: the account's WebSocket server, `ws://HOST[:PORT][/PATH]` or `wss://...`; its scheme
    /// must agree with `--transport` when that is given.
    /// `--pn-provider`, `--pn-prid` and `--pn-param` (RFC 8599): push parameters for the registration
    /// Contact; the provider and the token go together.
    var push: PushRegistration? {
        get throws(UsageError) {
            let provider = values["pn-provider"]
            let token = values["pn-prid"]
            guard provider != nil || token != nil || values["pn-param"] != nil else { return nil }
            guard let provider, let token else {
                throw UsageError(message: "--pn-provider and --pn-prid go together (RFC 8599 push parameters)")
            }
            let isToken = { (text: String) in
                !text.isEmpty && text.utf8.count <= 4096 && !text.contains { $0.isWhitespace || $0 == ";" }
            }
            guard isToken(provider), provider.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." })
            else { throw UsageError(message: "bad value for --pn-provider: \(provider)") }
            // The token is a credential: the message does not repeat it.
            guard isToken(token) else { throw UsageError(message: "bad value for --pn-prid (a token without spaces)") }
            if let parameter = values["pn-param"], !isToken(parameter) {
                throw UsageError(message: "bad value for --pn-param: \(parameter)")
            }
            return PushRegistration(
                provider: PushRegistration.Provider(provider.lowercased()), deviceToken: token,
                parameter: values["pn-param"])
        }
    }

    var webSocketURL: String? {
        get throws(UsageError) {
            guard let text = values["ws-url"] else { return nil }
            let lower = text.lowercased()
            let scheme: SIPTransportKind? = lower.hasPrefix("wss://") ? .wss : lower.hasPrefix("ws://") ? .ws : nil
            let rest = text.drop { $0 != "/" }.dropFirst(2)
            guard let scheme, !rest.isEmpty, !rest.hasPrefix("/"), !text.contains(where: \.isWhitespace) else {
                throw UsageError(message: "bad value for --ws-url: \(text) (ws://host:port/path or wss://...)")
            }
            if let transport = try transportKind, transport != scheme {
                throw UsageError(message: "--ws-url \(text) does not match --transport \(transport)")
            }
            return text
        }
    }

    var duration: Double? {
        get throws(UsageError) {
            guard let text = values["duration"] else { return nil }
            guard let d = Double(text), d >= 0 else { throw UsageError(message: "bad value for --duration: \(text)") }
            return d
        }
    }

    /// `--mwi-uri`: the mailbox subscribed to with `--mwi`.
    var messageSummaryURI: SIPAddress? {
        get throws(UsageError) { try uri("mwi-uri") }
    }

    var registrar: SIPAddress? {
        get throws(UsageError) { try uri("registrar") }
    }

    /// The address of record: `user@domain`, or the user at the registrar's host, or at `fallbackHost`.
    func addressOfRecord(fallbackHost: String) throws(UsageError) -> SIPAddress {
        guard let user = values["user"], !user.isEmpty else { throw UsageError(message: "--user is required") }
        var text = user
        if text.hasPrefix("sip:") || text.hasPrefix("sips:") {
            text = String(text.drop(while: { $0 != ":" }).dropFirst())
        }
        let host: String
        let name: String
        if let at = text.firstIndex(of: "@") {
            name = String(text[..<at])
            host = String(text[text.index(after: at)...])
        } else {
            name = text
            host = (try? registrar)?.host ?? fallbackHost
        }
        guard let address = try? SIPAddress(user: name, host: host) else {
            throw UsageError(message: "bad value for --user: \(user)")
        }
        return address
    }

    /// The URI flag `flag` (`sip:` added when it has no scheme), `nil` when it is not given.
    private func uri(_ flag: String) throws(UsageError) -> SIPAddress? {
        guard let text = values[flag] else { return nil }
        guard let address = try? SIPAddress(text.hasPrefix("sip") ? text : "sip:" + text) else {
            throw UsageError(message: "bad value for --\(flag): \(text)")
        }
        return address
    }

    var authUser: String? { values["auth-user"] }
    var password: String? { values["password"] }
}
