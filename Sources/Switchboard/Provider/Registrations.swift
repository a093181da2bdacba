import Foundation
import SIPMessage
import SIPUserAgent

/// The accounts' registrations: one `RegistrationDriver` per registering account, the state each reports
/// in the public API's terms, and who waits for an unregistration to end. Loop-confined.
final class Registrations {
    private let engine: Engine
    private let userAgent: String
    private var drivers: [String: RegistrationDriver] = [:]
    /// Push registrations that replaced an account's configured one (`CallProvider.updatePushToken`).
    private var pushUpdates: [String: PushRegistration] = [:]
    /// The `+sip.instance` made for each account that configures none (one per configured account).
    private var instanceIDs: [String: String] = [:]
    private var states: [String: RegistrationState]
    /// Run when an account's unregistration ends (while winding down).
    private var waiters: [String: [() -> Void]] = [:]
    /// Every state change, after `state(of:)` has it and before the waiters run.
    var onChange: ((String, RegistrationState) -> Void)?

    /// Registrations for the accounts `ids`, all `unregistered`.
    init(engine: Engine, userAgent: String, accounts ids: [String]) {
        self.engine = engine
        self.userAgent = userAgent
        states = Dictionary(ids.map { ($0, RegistrationState.unregistered) }, uniquingKeysWith: { first, _ in first })
    }

    /// An account's registration state; nil for an account the provider does not have.
    func state(of id: String) -> RegistrationState? { states[id] }

    /// Registers `entry` at its registrar now (replacing a driver it had).
    func register(_ entry: AccountEntry) -> CallError? {
        guard let registrar = entry.registrar else { return .configuration("account \(entry.id) has no registrar") }
        let id = entry.id
        drivers[id]?.detach()
        // One instance URN per account for the provider's life (RFC 5626 §4.1: stable across registrations).
        let instanceID = instanceIDs[id] ?? "urn:uuid:\(engine.environment.random.uuid().uuidString.lowercased())"
        instanceIDs[id] = instanceID
        var settings = entry.registrationSettings(registrar: registrar, userAgent: userAgent, instanceID: instanceID)
        if let push = pushUpdates[id] { settings.contactParameters = push.contactParameters }
        let driver = RegistrationDriver(engine: engine, settings: settings, credentials: entry.credentials)
        driver.onState = { [weak self] state in self?.changed(id, state) }
        drivers[id] = driver
        driver.start()
        return nil
    }

    /// The push registration account `entry` binds with now.
    func push(of entry: AccountEntry) -> PushRegistration? { pushUpdates[entry.id] ?? entry.account.push }

    /// The OS rotated the push token of `entry`: a running registration re-registers at once, binding the
    /// new Contact and removing the old one in the same REGISTER.
    func updatePush(_ push: PushRegistration, for entry: AccountEntry) {
        pushUpdates[entry.id] = push
        drivers[entry.id]?.replaceContactParameters(push.contactParameters)
    }

    /// Unregisters `id` (Expires: 0), when it has a registration.
    func unregister(_ id: String) { drivers[id]?.stop() }

    /// Whether `id` is registered or registering (an unregistration then has something to remove).
    func isBound(_ id: String) -> Bool {
        guard drivers[id] != nil else { return false }
        switch states[id] {
        case .registered, .registering: return true
        default: return false
        }
    }

    /// Unregisters `id`; `done` runs once the registrar confirmed, or the unregistration failed for good.
    func unregister(_ id: String, then done: @escaping () -> Void) {
        waiters[id, default: []].append(done)
        drivers[id]?.stop()
    }

    /// Suspends `id`'s registration (`RegistrationDriver.suspend`); returns whether it had one.
    func suspend(_ id: String) -> Bool {
        guard let driver = drivers.removeValue(forKey: id) else { return false }
        driver.suspend()
        return true
    }

    /// Stops every driver without sending anything (the provider is going away).
    func detachAll(in ids: [String]) {
        for id in ids { drivers[id]?.detach() }
    }

    private func changed(_ id: String, _ state: SIPUserAgent.RegistrationState) {
        guard var mapped = RegistrationState(state, now: engine.date) else { return }
        if case .failed(var failure, let willRetry) = mapped, failure.kind == .transportClosed {
            failure.transportFailure = drivers[id]?.lastTransportFailure
            mapped = .failed(failure, willRetry: willRetry)
        }
        states[id] = mapped
        onChange?(id, mapped)
        switch mapped {
        case .unregistered, .failed(_, willRetry: false):
            for waiter in waiters.removeValue(forKey: id) ?? [] { waiter() }
        default:
            break
        }
    }
}

extension RegistrationState {
    /// The public state for a registration client's, with an expiry `now` plus the granted seconds; nil for
    /// the client's states the app does not hear of (idle, unregistering). Pure.
    init?(_ state: SIPUserAgent.RegistrationState, now: Date) {
        switch state {
        case .idle, .unregistering: return nil
        case .registering: self = .registering
        case .registered(let expires, let contact, _):
            self = .registered(
                expires: now.addingTimeInterval(Double(expires)),
                contact: PushTokenRedaction.redact(contact.description))
        case .failed(let error, let willRetry):
            self = .failed(RegistrationFailure(error), willRetry: willRetry)
        case .unregistered: self = .unregistered
        }
    }
}

extension RegistrationFailure {
    /// The public failure for a registration client's error (the session errors the voice SDKs report).
    init(_ error: RegistrationError) {
        let kind: Kind =
            switch error.code {
            case .authenticationFailed: .authenticationFailed
            case .rejected: .rejected
            case .registrarUnreachable: .registrarUnreachable
            case .transportFailed: .transportClosed
            case .keepAliveTimeout: .keepAliveTimeout
            case .serverError: .serverError
            default: .protocolError
            }
        self.init(kind: kind, statusCode: error.status, reason: error.reason)
    }
}
