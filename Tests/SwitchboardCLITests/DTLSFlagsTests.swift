import Foundation
import Switchboard
import Testing

@testable import SwitchboardCLI

/// `--srtp-keying sdes|dtls`, `--srtp-suites` and `--webrtc`: flags into the provider's configuration, and a
/// loopback call keyed by DTLS whose `connected` lines name the keying and the suite.
@Suite("--srtp-keying, --srtp-suites and --webrtc")
struct DTLSFlagsTests {
    static func configuration(_ values: [String: String]) throws(UsageError) -> CallProviderConfiguration {
        let needs = ProviderHarness.Needs(
            registers: false, defaultListen: nil, target: nil, defaultMediaTimeout: nil)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
    }

    @Test func theFlagsSetTheKeyingAndTheProfile() throws {
        let plain = try Self.configuration([:])
        #expect(plain.srtpKeying == .sdes && !plain.usesWebRTCProfile)
        let dtls = try Self.configuration(["srtp": "mandatory", "srtp-keying": "dtls"])
        #expect(dtls.srtpKeying == .dtls && dtls.srtp == .mandatory)
        #expect(try Self.configuration(["webrtc": "true"]).usesWebRTCProfile)
    }

    @Test(arguments: ["", "zrtp", "DTLS-SRTP"])
    func aBadKeyingIsAUsageErrorNamingTheFlag(_ value: String) {
        #expect {
            _ = try Self.configuration(["srtp-keying": value])
        } throws: { error in
            (error as? UsageError)?.message.contains("--srtp-keying") == true
        }
    }

    @Test func theSuitesFlagListsSuitesInOrderOnce() throws {
        #expect(try Self.configuration([:]).srtpSuites == nil)
        let suites = try Self.configuration(["srtp-suites": "AES-GCM-128, aes-cm-80,aes-gcm-128"]).srtpSuites
        #expect(suites == [.aesGCM128, .aesCM80])
    }

    @Test(arguments: ["", ",", "aes-cm-128", "aes-gcm-128,f8"])
    func aBadSuiteIsAUsageErrorNamingTheFlag(_ value: String) {
        #expect {
            _ = try Self.configuration(["srtp-suites": value])
        } throws: { error in
            (error as? UsageError)?.message.contains("--srtp-suites") == true
        }
    }

    @Test func aDTLSCallOnTheSuiteTheFlagsAllow() async throws {
        let bob = try await InProcessAnswer.start([
            "--listen", "127.0.0.1:0", "--auto-answer", "--count", "1", "--srtp", "optional", "--codecs", "pcmu",
            "--srtp-suites", "aes-cm-32",
        ])
        let call = Capture()
        let status = await runCommand(
            [
                "call", "sip:bob@127.0.0.1:\(bob.port)", "--listen", "127.0.0.1:0", "--duration", "1", "--srtp",
                "mandatory", "--srtp-keying", "dtls", "--codecs", "pcmu",
            ],
            io: call.io)
        #expect(status == 0, "\(call.out) \(call.err)")
        #expect(await bob.exitStatus() == 0)
        let line = "connected codec=PCMU srtp=yes keying=dtls suite=aes-cm-32 transport=udp"
        #expect(call.out.contains { $0.contains(line) }, "\(call.out)")
        #expect(bob.capture.out.contains { $0.contains(line) }, "\(bob.capture.out)")
    }

    @Test func aWebRTCCallOverLoopbackSaysItsKeyingAndSuite() async throws {
        let bob = try await InProcessAnswer.start([
            "--listen", "127.0.0.1:0", "--auto-answer", "--count", "1", "--srtp", "optional", "--codecs", "opus",
        ])
        let call = Capture()
        let status = await runCommand(
            ["call", "sip:bob@127.0.0.1:\(bob.port)", "--listen", "127.0.0.1:0", "--duration", "1", "--webrtc"],
            io: call.io)
        #expect(status == 0, "\(call.out) \(call.err)")
        #expect(await bob.exitStatus() == 0)
        let line = "connected codec=opus srtp=yes keying=dtls suite=aes-gcm-128 transport=udp"
        #expect(call.out.contains { $0.contains(line) }, "\(call.out)")
        #expect(bob.capture.out.contains { $0.contains(line) }, "\(bob.capture.out)")
    }
}
