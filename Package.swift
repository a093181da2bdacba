// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "SIPMessage", targets: ["SIPMessage"]),
        .library(name: "SIPAuthentication", targets: ["SIPAuthentication"]),
        .executable(name: "switchboard", targets: ["SwitchboardCLI"]),
        .executable(name: "switchboard-bench", targets: ["SwitchboardBenchmarks"]),
        .executable(name: "FuzzSIPMessage", targets: ["FuzzSIPMessage"]),
    ],
    targets: [
        // The SIP message layer: URIs, header fields, requests and responses, parser,
        // serializer, stream framer and validation. Pure: no sockets, no clock.
        .target(name: "SIPMessage"),

        // Digest authentication (RFC 7616, RFC 8760): the client that answers 401/407 challenges and the
        // verifier that issues and checks them. Pure: no sockets; time and randomness are injected.
        .target(name: "SIPAuthentication", dependencies: ["SIPMessage", "COpenSSL"]),

        // The `switchboard` command line (see CLI.md).
        .executableTarget(name: "SwitchboardCLI", dependencies: ["SIPMessage"]),

        // Release-mode benchmarks; built in CI, run by hand.
        .executableTarget(name: "SwitchboardBenchmarks", dependencies: ["SIPMessage", "CAllocationCounter"]),
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
        .testTarget(name: "SIPAuthenticationTests", dependencies: ["SIPAuthentication", "SIPMessage"]),
        .testTarget(name: "SwitchboardCLITests", dependencies: ["SwitchboardCLI", "SIPMessage"]),
    ],
    swiftLanguageModes: [.v6]
)
