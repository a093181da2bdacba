// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "SIPMessage", targets: ["SIPMessage"]),
        .library(name: "SDP", targets: ["SDP"]),
        .executable(name: "switchboard", targets: ["SwitchboardCLI"]),
        .executable(name: "switchboard-bench", targets: ["SwitchboardBenchmarks"]),
        .executable(name: "FuzzSIPMessage", targets: ["FuzzSIPMessage"]),
        .executable(name: "FuzzSDP", targets: ["FuzzSDP"]),
    ],
    targets: [
        // The SIP message layer: URIs, header fields, requests and responses, parser,
        // serializer, stream framer and validation. Pure: no sockets, no clock.
        .target(name: "SIPMessage"),

        // SDP (RFC 8866): model, parser, serializer and the RFC 3264 offer/answer engine. Pure: no I/O,
        // no clock, no randomness of its own (sources are injected).
        .target(name: "SDP"),

        // The `switchboard` command line (see CLI.md).
        .executableTarget(name: "SwitchboardCLI", dependencies: ["SIPMessage"]),

        // Release-mode benchmarks; built in CI, run by hand.
        .executableTarget(name: "SwitchboardBenchmarks", dependencies: ["SIPMessage", "CAllocationCounter"]),
        .target(name: "CAllocationCounter"),

        // libFuzzer entry point; built with `--sanitize=fuzzer` by scripts/fuzz.
        .executableTarget(name: "FuzzSIPMessage", dependencies: ["SIPMessage"]),
        .executableTarget(name: "FuzzSDP", dependencies: ["SDP"]),

        .testTarget(
            name: "SIPMessageTests",
            dependencies: ["SIPMessage"],
            exclude: ["Data"]
        ),
        .testTarget(name: "SDPTests", dependencies: ["SDP"], exclude: ["Data"]),
        .testTarget(name: "SwitchboardCLITests", dependencies: ["SwitchboardCLI", "SIPMessage"]),
    ],
    swiftLanguageModes: [.v6]
)
