// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "SIPMessage", targets: ["SIPMessage"]),
        .library(name: "SIPTransaction", targets: ["SIPTransaction"]),
        .executable(name: "switchboard", targets: ["SwitchboardCLI"]),
        .executable(name: "switchboard-bench", targets: ["SwitchboardBenchmarks"]),
        .executable(name: "FuzzSIPMessage", targets: ["FuzzSIPMessage"]),
    ],
    targets: [
        // The SIP message layer: URIs, header fields, requests and responses, parser,
        // serializer, stream framer and validation. Pure: no sockets, no clock.
        .target(name: "SIPMessage"),

        // The transaction layer: the four RFC 3261 §17 state machines (with RFC 6026), matching and
        // timers. Sans-I/O: a driver feeds it messages, timer expiries and transport errors.
        .target(name: "SIPTransaction", dependencies: ["SIPMessage"]),

        // The `switchboard` command line (see CLI.md).
        .executableTarget(name: "SwitchboardCLI", dependencies: ["SIPMessage"]),

        // Release-mode benchmarks; built in CI, run by hand.
        .executableTarget(
            name: "SwitchboardBenchmarks", dependencies: ["SIPMessage", "SIPTransaction", "CAllocationCounter"]),
        .target(name: "CAllocationCounter"),

        // OpenSSL (libssl-dev): TLS, digests, randomness; macros wrapped in shim.h.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

        // libFuzzer entry point; built with `--sanitize=fuzzer` by scripts/fuzz.
        .executableTarget(name: "FuzzSIPMessage", dependencies: ["SIPMessage"]),

        .testTarget(
            name: "SIPMessageTests",
            dependencies: ["SIPMessage"],
            exclude: ["Data"]
        ),
        .testTarget(name: "SIPTransactionTests", dependencies: ["SIPTransaction", "SIPMessage"]),
        .testTarget(name: "SwitchboardCLITests", dependencies: ["SwitchboardCLI", "SIPMessage"]),
    ],
    swiftLanguageModes: [.v6]
)
