// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "SIPMessage", targets: ["SIPMessage"]),
        .library(name: "SIPTransport", targets: ["SIPTransport"]),
        .library(name: "SDP", targets: ["SDP"]),
        .library(name: "SIPAuthentication", targets: ["SIPAuthentication"]),
        .library(name: "SIPTransaction", targets: ["SIPTransaction"]),
        .library(name: "SIPUserAgent", targets: ["SIPUserAgent"]),
        .library(name: "Media", targets: ["Media"]),
        .library(name: "STUN", targets: ["STUN"]),
        .library(name: "ICE", targets: ["ICE"]),
        .library(name: "DTLS", targets: ["DTLS"]),
        .library(name: "Switchboard", targets: ["Switchboard"]),
        .library(name: "SwitchboardTesting", targets: ["SwitchboardTesting"]),
        .executable(name: "switchboard", targets: ["SwitchboardCLI"]),
        .executable(name: "switchboard-bench", targets: ["SwitchboardBenchmarks"]),
        .executable(name: "FuzzSIPMessage", targets: ["FuzzSIPMessage"]),
        .executable(name: "FuzzSDP", targets: ["FuzzSDP"]),
        .executable(name: "FuzzWebSocket", targets: ["FuzzWebSocket"]),
        .executable(name: "FuzzSTUN", targets: ["FuzzSTUN"]),
        .executable(name: "FuzzICE", targets: ["FuzzICE"]),
        .executable(name: "FuzzDTLS", targets: ["FuzzDTLS"]),
        .executable(name: "stun-probe", targets: ["STUNProbe"]),
        .executable(name: "sb-endpoint", targets: ["InteropEndpoint"]),
        .executable(name: "echo-bot", targets: ["EchoBot"]),
        .executable(name: "push-app", targets: ["PushApp"]),
    ],
    targets: [
        // The SIP message layer: URIs, header fields, requests and responses, parser,
        // serializer, stream framer and validation. Pure: no sockets, no clock.
        .target(name: "SIPMessage"),

        // Event loop, UDP/TCP/TLS transports, stream framing, Via handling, RFC 3263 resolution.
        .target(name: "SIPTransport", dependencies: ["SIPMessage", "CSystem", "COpenSSL"]),
        // epoll, eventfd, timerfd and glibc's resolver (libresolv) for NAPTR/SRV, wrapped for Swift.
        .target(name: "CSystem", linkerSettings: [.linkedLibrary("resolv")]),
        // SDP (RFC 8866): model, parser, serializer and the RFC 3264 offer/answer engine. Pure: no I/O,
        // no clock, no randomness of its own (sources are injected).
        .target(name: "SDP"),
        // Digest authentication (RFC 7616, RFC 8760): the client that answers 401/407 challenges and the
        // verifier that issues and checks them. Pure: no sockets; time and randomness are injected.
        .target(name: "SIPAuthentication", dependencies: ["SIPMessage", "COpenSSL"]),
        // The transaction layer: the four RFC 3261 §17 state machines (with RFC 6026), matching and
        // timers. Sans-I/O: a driver feeds it messages, timer expiries and transport errors.
        .target(name: "SIPTransaction", dependencies: ["SIPMessage"]),
        // The user-agent core: dialogs (RFC 3261 §12), INVITE sessions with offer/answer, re-INVITE, UPDATE,
        // PRACK and session timers, registration, and the other methods (INFO, MESSAGE, REFER, SUBSCRIBE/NOTIFY,
        // OPTIONS).
        // Sans-I/O: a driver feeds it messages, transaction outcomes and timer expiries.
        .target(name: "SIPUserAgent", dependencies: ["SIPMessage", "SDP", "SIPAuthentication"]),

        // libopus (libopus-dev); the variadic ctl requests are wrapped in shim.h.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),

        // The media half of a call: RTP/RTCP (RFC 3550), SRTP through libsrtp2 (RFC 3711), the jitter buffer;
        // audio (Sources/Media/Audio): G.711 and Opus, resampling, RFC 4733 telephone-events, sources and sinks
        // (WAV, tone, callbacks), tone measurement and the E-model. The packet half is sans-I/O: callers pass
        // bytes and times in, and get bytes and decisions out.
        .target(name: "Media", dependencies: ["SDP", "COpus", "CSRTP", "COpenSSL"]),
        // libsrtp2 (libsrtp2-dev), built on NSS on Debian: the AES-CM + HMAC-SHA1 suites and AEAD_AES_128_GCM (RFC 7714),
        // the cross-check of the native SRTP on OpenSSL.
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),

        // STUN (RFC 8489): the message codec with MESSAGE-INTEGRITY(-SHA256) and FINGERPRINT, short- and long-term
        // credentials, and the Binding client transaction; TURN (RFC 8656): its attributes, ChannelData, a stream
        // framer and a client per allocation (Allocate, Refresh, permissions, channels, Send and Data). Sans-I/O:
        // bytes and instants in, bytes and timer requests out; randomness is injected.
        .target(name: "STUN", dependencies: ["COpenSSL"]),
        // ICE (RFC 8445) with its SDP grammar (RFC 8839) and consent freshness (RFC 7675): candidates and
        // priorities, the check list, the Binding responder, roles, nomination and restart. Sans-I/O: candidates,
        // datagrams and instants in, sends, timer requests and events out; randomness is injected.
        .target(name: "ICE", dependencies: ["STUN"]),
        // DTLS-SRTP (RFC 5763, RFC 5764): a DTLS 1.2 client or server over OpenSSL's memory BIOs, the
        // certificate and its fingerprint, the peer's fingerprint check, use_srtp and the SRTP keys. Sans-I/O:
        // datagrams and instants in, datagrams, keys and typed failures out.
        .target(name: "DTLS", dependencies: ["Media", "SDP", "COpenSSL"]),

        // The transaction layer driven over the transport layer on an event loop, with validation.
        .target(name: "SIPCore", dependencies: ["SIPMessage", "SIPTransaction", "SIPTransport", "CSystem"]),

        // A small SIP endpoint (UAS and UAC for OPTIONS, MESSAGE, INVITE) that the Interop suite drives, and its
        // SDP-only media mode (offer and answer through files; ICE, DTLS-SRTP) for WebRTC stacks.
        .executableTarget(
            name: "InteropEndpoint",
            dependencies: [
                "SIPCore", "SIPMessage", "SIPTransport", "SIPTransaction", "SDP", "Media", "ICE", "STUN", "DTLS",
            ]),

        // The public API (CallProvider and friends) and the engine that runs the stack for it.
        .target(
            name: "Switchboard",
            dependencies: [
                "SIPCore", "SIPUserAgent", "SIPTransport", "SIPTransaction", "SIPMessage", "SIPAuthentication", "SDP",
                "Media", "ICE", "STUN", "DTLS", "COpenSSL", "CSystem",
            ]
        ),

        // The whole stack in virtual time, for tests (the project's and its users'): an event loop whose
        // clock moves when told, an in-memory network with impairments, and seeded randomness. No sockets.
        .target(
            name: "SwitchboardTesting",
            dependencies: ["Switchboard", "SIPTransport", "SIPCore", "SIPTransaction", "Media", "STUN"]
        ),

        // The `switchboard` command line (see CLI.md).
        .executableTarget(
            name: "SwitchboardCLI",
            dependencies: ["Switchboard", "Media", "SIPMessage", "CSystem"]),

        // An outside tool in miniature: an echo bot on the public API only (issue 6 §4).
        .executableTarget(name: "EchoBot", dependencies: ["Switchboard"], path: "Examples/EchoBot"),
        // The Interop suite's app woken by a push (RFC 8599 through Kamailio's tsilo), public API only.
        .executableTarget(name: "PushApp", dependencies: ["Switchboard"], path: "Interop/push/app"),

        // Release-mode benchmarks; built in CI, run by hand.
        .executableTarget(
            name: "SwitchboardBenchmarks",
            dependencies: [
                "SIPMessage", "SIPTransaction", "SIPTransport", "SIPUserAgent", "SIPAuthentication", "SDP", "Media",
                "STUN", "DTLS", "Switchboard", "SwitchboardTesting", "CAllocationCounter",
            ]),
        .target(name: "CAllocationCounter"),

        // OpenSSL (libssl-dev): TLS, digests, randomness; macros wrapped in shim.h.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

        // libFuzzer entry point; built with `--sanitize=fuzzer` by scripts/fuzz.
        .executableTarget(name: "FuzzSIPMessage", dependencies: ["SIPMessage"]),
        .executableTarget(name: "FuzzSDP", dependencies: ["SDP"]),
        .executableTarget(name: "FuzzWebSocket", dependencies: ["SIPTransport"]),
        .executableTarget(name: "FuzzSTUN", dependencies: ["STUN"]),
        .executableTarget(name: "FuzzICE", dependencies: ["ICE", "STUN"]),
        .executableTarget(name: "FuzzDTLS", dependencies: ["DTLS", "Media"]),
        // A Binding request over a real UDP socket, and two TURN allocations over UDP, TCP or TLS, for the
        // cross-checks against coturn (Interop/stun/coturn-check, Interop/stun/turn-check).
        .executableTarget(name: "STUNProbe", dependencies: ["STUN", "COpenSSL"], path: "Interop/stun/probe"),

        .testTarget(
            name: "SIPMessageTests",
            dependencies: ["SIPMessage"],
            exclude: ["Data"]
        ),
        .testTarget(name: "SIPTransportTests", dependencies: ["SIPTransport", "SIPMessage"]),
        .testTarget(name: "SDPTests", dependencies: ["SDP"], exclude: ["Data"]),
        .testTarget(name: "SIPAuthenticationTests", dependencies: ["SIPAuthentication", "SIPMessage"]),
        .testTarget(name: "SIPTransactionTests", dependencies: ["SIPTransaction", "SIPMessage"]),
        .testTarget(
            name: "SIPUserAgentTests", dependencies: ["SIPUserAgent", "SIPMessage", "SIPAuthentication", "SDP"]),
        .testTarget(
            name: "SIPCoreTests",
            dependencies: ["SIPCore", "SwitchboardTesting", "SIPTransport", "SIPTransaction", "SIPMessage"]),
        .testTarget(
            name: "SwitchboardTestingTests",
            dependencies: ["SwitchboardTesting", "Switchboard", "SIPTransport", "STUN"]),
        .testTarget(
            name: "SwitchboardTests",
            dependencies: [
                "Switchboard", "SwitchboardTesting", "SIPTransport", "SIPTransaction", "SIPMessage", "SIPUserAgent",
                "SDP", "Media", "ICE", "STUN", "DTLS",
            ]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "SDP"]),
        .testTarget(name: "STUNTests", dependencies: ["STUN"]),
        .testTarget(name: "ICETests", dependencies: ["ICE", "STUN"]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "Media", "SDP"]),
        .testTarget(name: "SwitchboardCLITests", dependencies: ["SwitchboardCLI", "Switchboard", "Media"]),
    ],
    swiftLanguageModes: [.v6]
)

// Let the compiler hold the layers: an import is internal unless written `public import`, a file sees only
// the members of modules it imports itself, and an existential type says `any`.
let layering: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]
let cTargets: Set<String> = ["CAllocationCounter", "CSystem"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + layering
}
