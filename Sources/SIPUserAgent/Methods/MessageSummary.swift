import SIPMessage

/// The body of a `message-summary` NOTIFY (RFC 3842 §5.2): whether messages wait, for which account, and
/// how many per message class (`Voice-Message: 2/8 (0/2)`).
public struct MessageSummary: Sendable, Hashable {
    /// New and old messages of one class, with the urgent ones among them.
    public struct Counts: Sendable, Hashable {
        /// New (unread) messages.
        public var new: Int
        /// Old (read) messages.
        public var old: Int
        /// Urgent new messages.
        public var urgentNew: Int
        /// Urgent old messages.
        public var urgentOld: Int

        /// - Parameters:
        ///   - new: new messages.
        ///   - old: old messages.
        ///   - urgentNew: urgent new messages.
        ///   - urgentOld: urgent old messages.
        public init(new: Int, old: Int, urgentNew: Int = 0, urgentOld: Int = 0) {
            self.new = new
            self.old = old
            self.urgentNew = urgentNew
            self.urgentOld = urgentOld
        }
    }

    /// `Messages-Waiting: yes`.
    public var messagesWaiting: Bool
    /// `Message-Account`, when given.
    public var account: String?
    /// Counts per message class, keyed by the lower-cased class (`voice-message`, `fax-message`, ...).
    public var counts: [String: Counts]

    /// The message classes of RFC 3458 §6.2 as they appear in a summary.
    public static let classes = [
        "voice-message", "fax-message", "pager-message", "multimedia-message", "text-message", "none",
    ]

    /// - Parameters:
    ///   - messagesWaiting: whether messages wait.
    ///   - account: the account URI.
    ///   - counts: counts per lower-cased class.
    public init(messagesWaiting: Bool, account: String? = nil, counts: [String: Counts] = [:]) {
        self.messagesWaiting = messagesWaiting
        self.account = account
        self.counts = counts
    }

    /// Voice-Message counts.
    public var voice: Counts? { counts["voice-message"] }

    /// Parses a body; `nil` without a valid `Messages-Waiting` line. Lines are `name: value`, names
    /// case-insensitive; the optional message headers after an empty line are skipped, as are unknown
    /// lines and malformed counts.
    public init?(parsing body: some Collection<UInt8>) {
        let text = String(decoding: body.prefix(16_384), as: UTF8.self)
        var waiting: Bool?
        var account: String?
        var counts: [String: Counts] = [:]
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.isEmpty {
                if waiting != nil { break }
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: " \t").lowercased()
            let value = parts[1].trimmingCharacters(in: " \t")
            switch name {
            case "messages-waiting":
                switch value.lowercased() {
                case "yes": waiting = true
                case "no": waiting = false
                default: return nil
                }
            case "message-account":
                account = value
            default:
                if MessageSummary.classes.contains(name), let parsed = MessageSummary.counts(value) {
                    counts[name] = parsed
                }
            }
        }
        guard let waiting else { return nil }
        self.init(messagesWaiting: waiting, account: account, counts: counts)
    }

    /// `new/old` or `new/old (urgentNew/urgentOld)`.
    private static func counts(_ text: String) -> Counts? {
        func pair(_ part: Substring) -> (Int, Int)? {
            let numbers = part.split(separator: "/")
            guard numbers.count == 2, let a = Int(numbers[0].trimmingCharacters(in: " ")),
                let b = Int(numbers[1].trimmingCharacters(in: " ")), a >= 0, b >= 0
            else { return nil }
            return (a, b)
        }
        let pieces = text.split(separator: "(", maxSplits: 1)
        guard let first = pieces.first, let (new, old) = pair(first) else { return nil }
        var urgent = (0, 0)
        if pieces.count == 2 {
            guard pieces[1].hasSuffix(")"), let parsed = pair(pieces[1].dropLast()) else { return nil }
            urgent = parsed
        }
        return Counts(new: new, old: old, urgentNew: urgent.0, urgentOld: urgent.1)
    }

    /// The body, classes in the order of `classes`.
    public var body: [UInt8] {
        var text = "Messages-Waiting: \(messagesWaiting ? "yes" : "no")\r\n"
        if let account { text += "Message-Account: \(account)\r\n" }
        for name in MessageSummary.classes {
            guard let count = counts[name] else { continue }
            let label = name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(
                separator: "-")
            text += "\(label): \(count.new)/\(count.old)"
            if count.urgentNew > 0 || count.urgentOld > 0 { text += " (\(count.urgentNew)/\(count.urgentOld))" }
            text += "\r\n"
        }
        return Array(text.utf8)
    }
}
