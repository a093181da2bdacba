/// A flag a command accepts.
struct FlagSpec: Sendable {
    var name: String
    /// `nil` for a boolean flag; otherwise the placeholder shown in help (`FILE`, `S`).
    var valueName: String?
    var help: String
}

/// A usage error: exit status 2, with a message naming the bad flag or argument.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The result of parsing a command's arguments.
struct ParsedArguments: Equatable {
    var flags: [String: String] = [:]
    var positionals: [String] = []

    func has(_ name: String) -> Bool { flags[name] != nil }
}

/// Conventional hand-written parsing: `--flag value`, `--flag=value`, boolean `--flag`, `--` ends flags.
func parseArguments(_ arguments: [String], specs: [FlagSpec]) throws(UsageError) -> ParsedArguments {
    var result = ParsedArguments()
    var i = 0
    var flagsEnded = false
    while i < arguments.count {
        let argument = arguments[i]
        i += 1
        if flagsEnded || !argument.hasPrefix("--") || argument == "-" {
            if argument.hasPrefix("-"), argument != "-", !flagsEnded {
                throw UsageError(message: "unknown flag '\(argument)'")
            }
            result.positionals.append(argument)
            continue
        }
        if argument == "--" {
            flagsEnded = true
            continue
        }
        var name = String(argument.dropFirst(2))
        var inlineValue: String?
        if let eq = name.firstIndex(of: "=") {
            inlineValue = String(name[name.index(after: eq)...])
            name = String(name[..<eq])
        }
        guard let spec = specs.first(where: { $0.name == name }) else {
            throw UsageError(message: "unknown flag '--\(name)'")
        }
        if spec.valueName == nil {
            guard inlineValue == nil else { throw UsageError(message: "flag '--\(name)' takes no value") }
            result.flags[name] = "true"
        } else if let inlineValue {
            result.flags[name] = inlineValue
        } else {
            guard i < arguments.count else { throw UsageError(message: "flag '--\(name)' needs a value") }
            result.flags[name] = arguments[i]
            i += 1
        }
    }
    return result
}

/// Help text for a command: usage line, summary, one line per flag.
func helpText(usage: String, summary: String, flags: [FlagSpec]) -> String {
    var lines = ["usage: \(usage)", "", summary]
    if !flags.isEmpty {
        lines.append("")
        lines.append("flags:")
        let width = flags.map { "--\($0.name)" + ($0.valueName.map { " \($0)" } ?? "") }.map(\.count).max() ?? 0
        for flag in flags {
            let left = "--\(flag.name)" + (flag.valueName.map { " \($0)" } ?? "")
            lines.append("  " + left + String(repeating: " ", count: width - left.count + 2) + flag.help)
        }
    }
    return lines.joined(separator: "\n")
}
