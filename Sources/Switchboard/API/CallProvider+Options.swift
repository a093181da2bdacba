extension CallProvider {
    /// Sends OPTIONS (RFC 3261 §11) outside any call from `account` (the first account when `nil`): a
    /// qualify, to see whether `handle` is reachable and answering. It goes in the account's transport form,
    /// like every request the account builds (a TLS account asks a `sips:` Request-URI).
    /// - Parameters:
    ///   - handle: whom to ask (`sip:bob@example.com`, or a user at the account's domain).
    ///   - account: the account to send from.
    /// - Returns: the final status (200 when the other side answers; 408 on timeout, 503 when unreachable).
    /// - Throws: `CallError.unknownAccount` or `CallError.invalidHandle`.
    public func sendOptions(to handle: Handle, from account: String? = nil) async throws(CallError) -> Int {
        let result: Result<Int, CallError> = await withCheckedContinuation { continuation in
            engine.execute { [core] in
                core.sendOptions(to: handle, from: account) { continuation.resume(returning: $0) }
            }
        }
        return try result.get()
    }
}
