import Foundation
import Switchboard

/// `--stun`, `--turn`, `--turn-user`, `--turn-password` (or `SWITCHBOARD_TURN_PASSWORD`) and `--ice`: the
/// provider's STUN and TURN servers and ICE policy; a bad value is a usage error naming its flag.
extension AccountOptions {
    /// `--stun HOST:PORT[,HOST:PORT...]`.
    var stunServers: [STUNServer] {
        get throws(UsageError) {
            guard let text = values["stun"] else { return [] }
            var servers: [STUNServer] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                do throws(CallError) {
                    servers.append(try STUNServer(parsing: item.trimmingCharacters(in: .whitespaces)))
                } catch {
                    throw UsageError(message: "bad value for --stun: \(item) (HOST:PORT)")
                }
            }
            return servers
        }
    }

    /// `--turn URI` with `--turn-user` and `--turn-password`.
    var turnServers: [TURNServer] {
        get throws(UsageError) {
            guard let url = values["turn"] else {
                if values["turn-user"] != nil {
                    throw UsageError(message: "--turn-user needs --turn (the TURN server's URI)")
                }
                return []
            }
            guard let user = values["turn-user"], !user.isEmpty, let password = values["turn-password"] else {
                throw UsageError(message: "--turn needs --turn-user and --turn-password (or SWITCHBOARD_TURN_PASSWORD)")
            }
            do throws(CallError) {
                return [try TURNServer(url: url, username: user, password: password)]
            } catch {
                throw UsageError(
                    message: "bad value for --turn: \(url) (turn:HOST:PORT?transport=udp|tcp or turns:HOST:PORT)")
            }
        }
    }

    /// `--ice off|on|relay`; `nil` without the flag (on exactly when a server is given).
    var icePolicy: ICEPolicy? {
        get throws(UsageError) {
            guard let text = values["ice"] else { return nil }
            guard let policy = ICEPolicy(rawValue: text.lowercased()) else {
                throw UsageError(message: "bad value for --ice: \(text) (off, on or relay)")
            }
            return policy
        }
    }

    /// The ICE flags into `configuration`; `--ice relay` needs a TURN server.
    func applyICE(to configuration: inout CallProviderConfiguration) throws(UsageError) {
        configuration.stunServers = try stunServers
        configuration.turnServers = try turnServers
        configuration.icePolicy = try icePolicy
        if configuration.icePolicy == .relayOnly, configuration.turnServers.isEmpty {
            throw UsageError(message: "--ice relay needs --turn (relayed candidates only)")
        }
    }
}
