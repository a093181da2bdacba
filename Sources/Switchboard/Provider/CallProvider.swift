public import Dispatch
public import Foundation
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import Synchronization

/// The app's entry point, shaped like CallKit's `CXProvider`: configured once, it listens, registers its
/// accounts, hands incoming invites and the actions the app requests to its delegate, and reports every
/// call's progress. All SIP work runs on one signalling loop; the delegate is called on its own queue.
///
/// ```swift
/// let provider = try CallProvider(configuration: configuration)
/// provider.setDelegate(delegate, queue: nil)
/// let controller = CallController(provider: provider)
/// try await controller.request(CallTransaction(action: StartCallAction(call: UUID(), handle: handle)))
/// ```
public final class CallProvider: Sendable {
    /// The configuration the provider runs with.
    public let configuration: CallProviderConfiguration

    let engine: Engine
    let core: ProviderCore
    let outlet: EventOutlet
    let logger: Logger
    private let isInvalidated = Atomic<Bool>(false)
    private let hasBegun = Atomic<Bool>(false)

    /// Starts the signalling loop, opens the listeners and registers the accounts that register on start.
    /// - Parameters:
    ///   - configuration: accounts, listeners, codecs, limits.
    ///   - logger: where diagnostics go; nothing is logged when omitted.
    /// - Throws: `CallError.configuration` when a listener cannot open or an account is unusable.
    public convenience init(configuration: CallProviderConfiguration, logger: Logger = .discarding())
        throws(CallError)
    {
        try self.init(configuration: configuration, logger: logger, environment: .system)
    }

    /// A provider whose loops, sockets, randomness and clocks come from `environment` (the testing
    /// product's virtual world, say).
    package init(
        configuration: CallProviderConfiguration, logger: Logger = .discarding(), environment: EngineEnvironment
    ) throws(CallError) {
        self.configuration = configuration
        self.logger = logger
        let tls = TLSConfiguration(
            trustedCAFile: configuration.tls.trustedCAFile, certificateFile: configuration.tls.certificateFile,
            privateKeyFile: configuration.tls.privateKeyFile, verifiesPeer: configuration.tls.verifiesPeer)
        var limits = ParserLimits()
        limits.maximumMessageSize = configuration.maximumMessageSize
        let transport = TransportConfiguration(
            parserLimits: limits, maximumConnections: configuration.maximumConnections, tls: tls)
        let timers = TransactionTimers(t1: configuration.t1, t2: configuration.t2, t4: configuration.t4)
        let accounts = try AccountBook(configuration.accounts)
        if configuration.srtpSuites?.isEmpty == true {
            throw .configuration("srtpSuites names no suite (nil keeps the defaults)")
        }
        let dtls = try DTLSCallSettings.load(configuration)
        do {
            engine = try Engine(
                transport: transport,
                transactions: TransactionConfiguration(
                    timers: timers, maximumTransactions: configuration.transactionLimit,
                    initialCapacity: configuration.expectedTransactions),
                expectedCallRate: configuration.expectedCallRate, mediaPorts: configuration.mediaPorts,
                environment: environment)
        } catch {
            throw .configuration("cannot start the signalling loop: \(error)")
        }
        outlet = EventOutlet(loop: environment.deliversOnLoop ? engine.loop : nil)
        core = ProviderCore(
            engine: engine, configuration: configuration, accounts: accounts, dtls: dtls, logger: logger)
        core.provider = WeakProvider()
        let outcome = engine.loop.run { [core] () -> CallError? in core.start() }
        if let outcome {
            engine.shutdown()
            throw outcome
        }
        core.provider.set(self)
        engine.execute { [core] in core.registerOnStart() }
    }

    deinit {
        if !isInvalidated.load(ordering: .acquiring) { engine.shutdown() }
    }

    /// Sets the delegate (held weakly) and the queue it is called on; `nil` means a private serial queue
    /// (not the main queue as in CallKit: a Linux tool may never run it).
    /// The first delegate set hears `providerDidBegin` (as CallKit's does once it is set).
    public func setDelegate(_ delegate: (any CallProviderDelegate)?, queue: DispatchQueue?) {
        outlet.setDelegate(delegate, queue: queue)
        if delegate != nil, !hasBegun.exchange(true, ordering: .acquiringAndReleasing) {
            outlet.emit(.didBegin, from: self)
        }
    }

    /// Every event the delegate hears, as an async sequence; each access makes a new stream, which ends
    /// when the provider is invalidated.
    public var events: AsyncStream<CallProviderEvent> { outlet.makeStream() }

    /// Every SIP message in and out (Authorization values redacted), as an async sequence.
    public var traces: AsyncStream<SIPTraceEvent> {
        let stream = outlet.makeTraceStream()
        engine.execute { [core] in core.enableTracing() }
        return stream
    }

    /// The calls in progress, newest last.
    public var calls: [Call] { engine.loop.run { [core] in core.calls.snapshots() } }

    /// Reports the call a VoIP push announces, before any SIP of it has arrived, and returns its UUID; call it
    /// from PushKit's callback, which must report a call to CallKit before it returns
    /// (`Docs/BridgingToCallKit.md`). It does three things:
    /// - the delegate hears `provider(_:didReceive:)` with a `CallInvite` made from the payload (caller,
    ///   Call-ID), on its queue; answer or end it as any invite, even before the INVITE comes;
    /// - the account's registration is sent again, so the proxy learns the flow to deliver the INVITE on;
    /// - the INVITE that then arrives is bound to the same UUID (by Call-ID, or without one the oldest
    ///   waiting call of that account from that caller): the delegate hears `inviteDidArrive` and an update,
    ///   never a second invite. An answer given before it arrived goes out the moment it does; a call
    ///   declined before it arrived has its INVITE refused with 603.
    ///
    /// A second push for the same call returns the same UUID and reports nothing twice. A `cancel` push ends
    /// the waiting call with `didCancel` (`reason` says whether the caller gave up or another device took
    /// it). A call whose INVITE does not come within `pushInviteTimeout` ends with `.failed`. The keys are
    /// those of `PushPayload`.
    @discardableResult
    public func reportPushPayload(_ payload: [String: String]) -> UUID { reportPush(PushPayload(payload)) }

    /// `reportPushPayload(_:)` with the payload already read.
    @discardableResult
    public func reportPush(_ payload: PushPayload) -> UUID {
        engine.loop.run { [core] in core.calls.reportPush(payload) }
    }

    /// The OS gave the app a new push token (PushKit's `didUpdate pushCredentials`): `account` re-registers at
    /// once with it, and the same REGISTER removes the binding with the old token, so the proxy keeps exactly
    /// one. Later registrations use the new token too.
    /// - Throws: `CallError.unknownAccount`.
    public func updatePushToken(_ push: PushRegistration, for account: String) throws(CallError) {
        let error = engine.loop.run { [core] in core.updatePush(push, for: account) }
        if let error { throw error }
    }

    /// The app is going to the background, where iOS suspends it and kills one that keeps sockets open:
    /// every account's registration stops refreshing and closes its connection without unregistering, so
    /// the binding, with its push parameters (`Account.push`), stays at the registrar and the push proxy
    /// wakes the app for the next call. Calls in progress are not touched. A push
    /// (`reportPushPayload(_:)`) registers its account again; `resume()` registers them all.
    public func suspend() { engine.loop.run { [core] in core.suspend() } }

    /// The app is back in the foreground: the accounts `suspend()` put to sleep register again.
    public func resume() { engine.loop.run { [core] in core.resume() } }

    /// What the provider holds now: calls, sessions, transactions and media ports.
    public var statistics: CallProviderStatistics { engine.loop.run { [core] in core.statistics() } }

    /// One call, if the provider knows it.
    public func call(with uuid: UUID) -> Call? { engine.loop.run { [core] in core.calls.snapshot(uuid) } }

    /// Restarts ICE on a connected call (RFC 8445 §9): a re-INVITE with new credentials; the pair in use carries
    /// the media until the new checks select one. Internal for now: tests drive the peer's side of restarts.
    func restartICE(for uuid: UUID) { engine.loop.execute { [core] in core.calls.restartICE(uuid) } }

    /// Asks for a new DTLS-SRTP association on a connected call (RFC 8842 §5.2): a re-INVITE whose `a=tls-id` is
    /// new and whose `a=setup` is `actpass`. When the peer answers it, a new handshake runs on the media path and its keys replace the old ones; the
    /// call keeps its audio, with a pause of a round trip or two while no keys are in force. A handshake that
    /// fails ends the call with `.mediaSecurityFailed`, as on the first one; a refused re-INVITE leaves the
    /// association in force. Returns once the re-INVITE went; a re-offer without a new tls-id (hold, resume,
    /// an ICE restart) keeps the association.
    /// - Parameter callUUID: the call.
    /// - Throws: `CallError.unknownCallUUID`; `CallError.invalidAction(_:)` when the call is not connected, is
    ///   not keyed by DTLS, or has an offer or re-INVITE in progress (nothing is sent then).
    public func renewDTLSAssociation(for callUUID: UUID) throws(CallError) {
        let error = engine.loop.run { [core] in core.calls.renewDTLSAssociation(callUUID) }
        if let error { throw error }
    }

    /// Where the provider listens, after ports 0 were resolved (`udp:127.0.0.1:40612`).
    public var listeners: [CallProviderConfiguration.Listener] { engine.loop.run { [core] in core.listeners() } }

    /// An account's registration state.
    public func registrationState(for account: String) -> RegistrationState? {
        engine.loop.run { [core] in core.registrations.state(of: account) }
    }

    /// Registers `account` (from the configuration) now.
    public func register(account: String) throws(CallError) {
        let error = engine.loop.run { [core] in core.register(account) }
        if let error { throw error }
    }

    /// Unregisters `account` (Expires: 0); the state goes to `unregistered` when the registrar confirms.
    public func unregister(account: String) throws(CallError) {
        let error = engine.loop.run { [core] in core.unregister(account) }
        if let error { throw error }
    }

    /// Starts audio for a call when `usesManualAudioActivation` is set (what an iOS app calls from
    /// CallKit's `didActivate`). Until then outgoing audio is silence.
    public func activateAudio(for callUUID: UUID) {
        engine.execute { [core] in core.calls.activateAudio(callUUID, active: true) }
    }

    /// Sets where a call's audio comes from and goes (instead of `CallProviderConfiguration.audio`).
    /// Call it from the invite callback, right after starting a call, or during the call.
    public func setAudio(_ audio: CallAudio, for callUUID: UUID) {
        engine.execute { [core] in core.calls.setAudio(audio, for: callUUID) }
    }

    /// Stops audio for a call (CallKit's `didDeactivate`).
    public func deactivateAudio(for callUUID: UUID) {
        engine.execute { [core] in core.calls.activateAudio(callUUID, active: false) }
    }

    /// Sends a MESSAGE (RFC 3428) outside any call from `account` (the first account when `nil`).
    /// - Returns: the final status (2xx when delivered).
    public func send(_ message: TextMessage, from account: String? = nil) async throws(CallError) -> Int {
        let result: Result<Int, CallError> = await withCheckedContinuation { continuation in
            engine.execute { [core] in
                core.sendMessage(message, from: account) { continuation.resume(returning: $0) }
            }
        }
        return try result.get()
    }

    /// Ends every call (BYE, CANCEL or rejection), unregisters every account, waits up to `timeout` for
    /// those transactions, closes the sockets and tells the delegate `providerDidReset`. When it returns, the
    /// delegate has been given every callback, `providerDidReset` last (waiting at most one more second for
    /// the delegate queue), and the provider does nothing more. Blocks the caller; do not call it from the
    /// delegate queue of a delegate that must still run meanwhile.
    public func invalidate(timeout: Duration = .seconds(5)) {
        guard !isInvalidated.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let wait = engine.environment.wait {
            let finished = Atomic<Bool>(false)
            engine.execute { [core] in core.windDown { finished.store(true, ordering: .releasing) } }
            wait(timeout) { finished.load(ordering: .acquiring) }
        } else {
            let done = DispatchSemaphore(value: 0)
            engine.execute { [core] in core.windDown { done.signal() } }
            let nanoseconds =
                timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            _ = done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
        }
        engine.loop.run { [core] in core.reset() }
        outlet.emit(.didReset, from: self)
        engine.shutdown()
        outlet.finish()
        outlet.drain(timeout: .now() + 1)
    }

    /// Checks and carries out a transaction for the controller.
    func request(_ transaction: CallTransaction, completion: @escaping @Sendable (CallError?) -> Void) {
        guard !isInvalidated.load(ordering: .acquiring) else {
            completion(.providerUnavailable)
            return
        }
        engine.execute { [core] in core.actions.request(transaction, completion: completion) }
    }

    /// Checks and carries out a transaction; `completion` runs on `queue`, handed over with the events of
    /// the same loop iteration.
    func request(
        _ transaction: CallTransaction, completionQueue queue: DispatchQueue,
        completion: @escaping @Sendable (CallError?) -> Void
    ) {
        guard !isInvalidated.load(ordering: .acquiring) else {
            queue.async { completion(.providerUnavailable) }
            return
        }
        engine.execute { [core] in
            core.actions.request(transaction) { error in core.post(on: queue) { completion(error) } }
        }
    }
}

/// The provider as the loop sees it: weak, so the loop never keeps a provider alive.
final class WeakProvider: Sendable {
    private let reference = Mutex<WeakBox?>(nil)

    private struct WeakBox {
        weak var provider: CallProvider?
    }

    func set(_ provider: CallProvider) { reference.withLock { $0 = WeakBox(provider: provider) } }

    var provider: CallProvider? { reference.withLock { $0?.provider } }
}
