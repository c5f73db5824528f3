import Foundation
import SoarCore

/// Keeps the device's row in `device_tokens` in step with the session, best effort.
///
/// - A token that arrives while someone is signed in is upserted as `(user_id, token)`.
/// - A sign-in (or a switch to another user) with a token at hand upserts it as the new user.
/// - A session that ends (sign-out, a switch, a refused refresh) has its row deleted with its own
///   token, so the device never gets the old user's pushes.
/// - Nothing is thrown into the UI: a missing table or an unreachable server is logged, and the
///   work is retried by ``retry()`` (on reconnect) and before the next registration. A wipe that
///   failed keeps the ended session's refresh token in the ``SecureStore`` to finish later.
///
/// Its work runs one piece at a time, in the order it was asked for, so a registration and a
/// wipe never interleave.
public actor PushTokenRegistrar {
    /// The key the registrar keeps its token, row and pending wipes under in the ``SecureStore``.
    public static let stateKey = "soar.push-registrar"

    private let registry: any DeviceTokenRegistry
    private let auth: any SessionProviding
    private let store: any SecureStore
    private let environment: String?
    private let bundleId: String?
    private let attributes: DeviceAttributes?
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    private var state: State
    private var tail: Task<Void, Never>?

    /// What survives a relaunch: the token, the row on the server, and the rows left to delete.
    struct State: Codable, Equatable {
        var token: String?
        var registered: DeviceToken?
        var pendingWipes: [PendingWipe] = []
    }

    /// A row whose deletion failed, with what is needed to delete it later.
    struct PendingWipe: Codable, Equatable {
        var userId: UUID
        var token: String
        var refreshToken: String
    }

    /// - Parameters:
    ///   - environment: `sandbox` for a debug build, `production` for TestFlight and the App Store.
    ///   - bundleId: the app's bundle id (the `apns-topic` the server sends with).
    ///   - attributes: written with the token, for segments (``DeviceAttributes/current``); nil:
    ///     none (a schema without those columns).
    ///   - log: where failures are told, since they are never thrown.
    public init(
        registry: any DeviceTokenRegistry, auth: any SessionProviding, store: any SecureStore, environment: String? = nil,
        bundleId: String? = nil, attributes: DeviceAttributes? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.registry = registry
        self.auth = auth
        self.store = store
        self.environment = environment
        self.bundleId = bundleId
        self.attributes = attributes
        self.log = log
        self.now = now
        state = (try? store.data(for: Self.stateKey)).flatMap { try? JSONCoding.decode(State.self, from: $0) } ?? State()
    }

    /// The device's APNs token, lowercase hex.
    public var token: String? { state.token }
    /// The row known to be on the server.
    public var registered: DeviceToken? { state.registered }
    /// True while a deletion waits to be retried.
    public var hasPendingWipe: Bool { !state.pendingWipes.isEmpty }

    /// Follows the session: wipes as a session ends, registers after one begins. Wipes left from
    /// before (a sign-out while offline) are tried again at once.
    ///
    /// - Returns: the task that follows sign-ins; cancel it to stop.
    public func start() async -> Task<Void, Never> {
        await auth.onSessionEnd { [weak self] ending in await self?.wipe(ending) ?? true }
        await retry()
        let changes = auth.authStateChanges
        return Task { [weak self] in
            for await (event, _) in changes where event != .signedOut {
                await self?.retry()
            }
        }
    }

    /// Takes a new device token (hex, as APNs' bytes hex-encoded) and registers it for the
    /// signed-in user.
    ///
    /// - Throws: ``AppError`` `.validation` for text that is not a device token; the token and row
    ///   at hand stay as they were.
    public func tokenChanged(_ hex: String) async throws(AppError) {
        let token: PushToken
        do { token = try PushToken(hex: hex) } catch { throw AppError(.validation, "Not a device token: \(error.description).") }
        await serially { await $0.takeToken(token.hex) }
    }

    /// Finishes failed wipes, then a missing registration; call it when the network returns.
    public func retry() async {
        await serially { await $0.register() }
    }

    /// Deletes the ending session's row; on failure keeps what is needed to retry.
    ///
    /// - Returns: true when nothing is left to do.
    func wipe(_ ending: AuthSession) async -> Bool {
        await serially { await $0.delete(ending) }
    }

    // MARK: the work, one piece at a time

    /// Runs `work` after everything asked for before it.
    private func serially<T: Sendable>(_ work: @escaping @Sendable (isolated PushTokenRegistrar) async -> T) async -> T {
        let previous = tail
        let task = Task { await previous?.value; return await work(self) }
        tail = Task { _ = await task.value }
        return await task.value
    }

    private func takeToken(_ hex: String) async {
        if hex != state.token {
            state.token = hex
            save()
        }
        await register()
    }

    /// Upserts the token as the signed-in user, once failed wipes have been retried.
    private func register() async {
        await finishPendingWipes()
        guard let token = state.token, let session = auth.currentSession else { return }
        // Registered already, unless what the device tells of itself changed (an app update).
        if let registered = state.registered, registered.userId == session.user.id, registered.token == token,
            attributes == nil || (registered.appVersion, registered.locale, registered.timeZone) == (attributes?.appVersion, attributes?.locale, attributes?.timeZone)
        {
            return
        }
        do {
            let valid = try await auth.session
            guard valid.user.id == session.user.id else { return }
            var registration = DeviceToken(
                userId: valid.user.id, token: token, environment: environment, bundleId: bundleId, updatedAt: now())
            (registration.appVersion, registration.locale, registration.timeZone) = (attributes?.appVersion, attributes?.locale, attributes?.timeZone)
            try await registry.register(registration, accessToken: valid.accessToken)
            state.registered = registration
            save()
        } catch {
            log("push token registration failed, will retry: \(error.message)")
        }
    }

    private func delete(_ ending: AuthSession) async -> Bool {
        if state.registered?.userId == ending.user.id { state.registered = nil }
        save()
        guard let token = state.token else { return true }
        do {
            try await registry.unregister(token: token, userId: ending.user.id, accessToken: ending.accessToken)
            return true
        } catch {
            log("push token wipe failed, will retry: \(error.message)")
            state.pendingWipes.append(PendingWipe(userId: ending.user.id, token: token, refreshToken: ending.refreshToken))
            save()
            return false
        }
    }

    private func finishPendingWipes() async {
        for wipe in state.pendingWipes {
            do {
                let session = try await auth.exchange(refreshToken: wipe.refreshToken)
                try await registry.unregister(token: wipe.token, userId: wipe.userId, accessToken: session.accessToken)
                await auth.revoke(session)
            } catch where error.isOffline || (error.status ?? 0) >= 500 || error.status == 429 || error.status == 408 {
                log("push token wipe failed again, will retry: \(error.message)")
                continue
            } catch {
                // The old session is gone for good (revoked or expired): nothing can delete its
                // row now; the server drops it when another user registers this token.
                log("push token wipe abandoned: \(error.message)")
            }
            state.pendingWipes.removeAll { $0 == wipe }
            save()
        }
    }

    private func save() {
        if let data = try? JSONCoding.encode(state) { try? store.set(data, for: Self.stateKey) }
    }
}
