/// Why the transaction layer refused something the TU asked of it. Incoming messages never throw: what the
/// layer cannot use is dropped or answered, as RFC 3261 says.
public struct TransactionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; grows over time, so match with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// The request cannot start a client transaction: no top Via with a `z9hG4bK` branch (§8.1.1.7),
        /// or no CSeq naming the request's method (§8.1.1.5).
        public static let invalidRequest = Code(raw: 1, name: "request cannot start a transaction")
        /// ACK never has a client transaction of its own (§17.1.1.3 builds the ACK for non-2xx; the TU
        /// sends the ACK for 2xx straight to the transport, §13.2.2.4).
        public static let ackWithoutTransaction = Code(raw: 2, name: "ACK has no client transaction")
        /// A client transaction with the same branch and method is still running (§17.1.3 could not tell
        /// their responses apart).
        public static let duplicateTransaction = Code(raw: 3, name: "a transaction with this branch and method exists")
        /// The table holds `Configuration.maximumTransactions` live transactions.
        public static let tooManyTransactions = Code(raw: 4, name: "too many transactions")
        /// No live transaction has this identifier (it terminated, or never existed).
        public static let unknownTransaction = Code(raw: 5, name: "no such transaction")
        /// Responses can only be sent through server transactions.
        public static let notAServerTransaction = Code(raw: 6, name: "not a server transaction")
        /// The status code is outside 100...699.
        public static let invalidResponse = Code(raw: 7, name: "status code out of range")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// More detail, fit for a log line.
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.name : "\(code.name): \(detail)" }
}
