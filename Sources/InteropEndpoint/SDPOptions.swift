/// The options of `sb-endpoint sdp`: the SDP-only entry point for media tests (issue 16, item 5).
struct SDPOptions {
    enum Role: String { case offer, answer }

    var role = Role.offer
    var localSDP = ""
    var remoteSDP = ""
    var isWebRTC = false
    var address = "127.0.0.1"
    var port: UInt16 = 0
    var codecs: [String] = ["pcmu"]
    var toneHz: Double?
    var record: String?
    var duration: Double = 5
    var timeout: Double = 30

    static let usage = """
        usage: sb-endpoint sdp --role offer|answer --local-sdp FILE --remote-sdp FILE [--webrtc]
                               [--address IPV4] [--port N] [--codecs pcmu,pcma,opus] [--play tone:HZ]
                               [--record FILE.wav] [--duration S] [--timeout S]
        SDP through files, then media: the offerer writes its offer to --local-sdp and waits for the answer
        in --remote-sdp; the answerer waits for the offer in --remote-sdp and writes its answer to
        --local-sdp (each file is written whole, by rename). Plain RTP/AVP by default; --webrtc makes it
        UDP/TLS/RTP/SAVPF with ICE (host candidate), rtcp-mux and DTLS-SRTP (RFC 5763, 5764, 8842 setup).
        Media runs --duration seconds once up; --timeout bounds the wait for the peer's SDP, ICE and DTLS.
        Prints `connected srtp=yes|no keying=none|dtls suite=...` and `ended ... tx-frames=N rx-frames=N`,
        or `failed reason="..."` (exit 1).
        """

    static func parse(_ arguments: [String]) throws(Options.Failure) -> SDPOptions {
        var options = SDPOptions()
        var i = 0
        func value(_ name: String) throws(Options.Failure) -> String {
            guard i < arguments.count else { throw Options.Failure(message: "\(name) needs a value") }
            defer { i += 1 }
            return arguments[i]
        }
        while i < arguments.count {
            let flag = arguments[i]
            i += 1
            switch flag {
            case "--role": options.role = try Role(rawValue: value(flag)).orFail(flag)
            case "--local-sdp": options.localSDP = try value(flag)
            case "--remote-sdp": options.remoteSDP = try value(flag)
            case "--webrtc": options.isWebRTC = true
            case "--address": options.address = try value(flag)
            case "--port": options.port = try UInt16(value(flag)).orFail(flag)
            case "--codecs": options.codecs = try value(flag).lowercased().split(separator: ",").map(String.init)
            case "--play":
                let text = try value(flag)
                guard text.hasPrefix("tone:"), let hz = Double(text.dropFirst(5)), hz > 0, hz < 4000 else {
                    throw Options.Failure(message: "bad --play \(text) (tone:HZ)")
                }
                options.toneHz = hz
            case "--record": options.record = try value(flag)
            case "--duration": options.duration = try Double(value(flag)).orFail(flag)
            case "--timeout": options.timeout = try Double(value(flag)).orFail(flag)
            case "--help", "-h": throw Options.Failure(message: usage)
            default: throw Options.Failure(message: "unknown flag '\(flag)'\n\(usage)")
            }
        }
        guard !options.localSDP.isEmpty, !options.remoteSDP.isEmpty else {
            throw Options.Failure(message: "--local-sdp and --remote-sdp are required\n\(usage)")
        }
        guard options.duration > 0, options.duration <= 600, options.timeout > 0, options.timeout <= 600 else {
            throw Options.Failure(message: "--duration and --timeout must be within (0, 600] seconds")
        }
        return options
    }
}
