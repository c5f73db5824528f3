import Foundation
import SoarCore

/// Keeps the device's row in `device_tokens` in step with the session, best effort.
///
/// - A token that arrives while someone is signed in is upserted as `(user_id, token)`.
/// - A sign-in (or a switch to another user) with a token at hand upserts it as the new user.
/// - A session that ends (sign-out, or another user signing in) deletes its row first, with its
///   own token, so the device never gets the old user's pushes.
/// - Nothing is thrown into the UI: a missing table or an unreachable server is logged, and the
///   work is retried by ``retry()`` (on reconnect) and before the next registration. A wipe that
///   failed keeps the ended session's refresh token in the ``SecureStore`` to finish later.
public actor PushTokenRegistrar {
    static let pendingWipeKey = "soar.pending-wipe"

    private let registry: any DeviceTokenRegistry
    private let auth: AuthClient
    private let store: any SecureStore
    private let environment: String?
    private let bundleId: String?
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    /// The device's APNs token, lowercase hex.
    public private(set) var token: String?
    /// The row known to be on the server.
    public private(set) var registered: DeviceRegistration?
    private var pendingWipe: PendingWipe?

    /// A row whose deletion failed, with what is needed to delete it later.
    struct PendingWipe: Codable, Equatable {
        var userId: UUID
        var token: String
        var refreshToken: String
    }

    /// - Parameters:
    ///   - environment: `sandbox` for a debug build, `production` for TestFlight and the App Store.
    ///   - bundleId: the app's bundle id (the `apns-topic` the server sends with).
    ///   - log: where failures are told, since they are never thrown.
    public init(
        registry: any DeviceTokenRegistry, auth: AuthClient, store: any SecureStore, environment: String? = nil,
        bundleId: String? = nil, log: @escaping @Sendable (String) -> Void = { _ in }, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.registry = registry
        self.auth = auth
        self.store = store
        self.environment = environment
        self.bundleId = bundleId
        self.log = log
        self.now = now
        pendingWipe = (try? store.data(for: Self.pendingWipeKey)).flatMap { try? JSONCoding.decode(PendingWipe.self, from: $0) }
    }

    /// True while a deletion waits to be retried.
    public var hasPendingWipe: Bool { pendingWipe != nil }

    /// Follows the session: wipes before a session ends, registers after one begins.
    ///
    /// - Returns: the task that follows sign-ins; cancel it to stop.
    public func start() async -> Task<Void, Never> {
        await auth.onSessionEnd { [weak self] ending in await self?.wipe(ending) ?? true }
        let changes = await auth.stateChanges()
        return Task { [weak self] in
            for await event in changes {
                guard let self else { return }
                if event.kind != .signedOut { await self.register() }
            }
        }
    }

    /// Takes a new device token (lowercase hex) and registers it for the signed-in user.
    public func tokenChanged(_ hex: String) async {
        guard hex != token else {
            if registered == nil { await register() }
            return
        }
        token = hex
        await register()
    }

    /// Finishes a failed wipe, then a missing registration; call it when the network returns.
    public func retry() async {
        await register()
    }

    /// Upserts the token as the signed-in user, once any failed wipe has been retried.
    private func register() async {
        await finishPendingWipe()
        guard let token, let session = await auth.session else { return }
        if registered?.userId == session.user.id, registered?.token == token { return }
        let registration = DeviceRegistration(
            userId: session.user.id, token: token, environment: environment, bundleId: bundleId, updatedAt: now())
        do {
            let valid = try await auth.validSession()
            guard valid.user.id == registration.userId else { return }
            try await registry.register(registration, accessToken: valid.accessToken)
            registered = registration
        } catch {
            log("push token registration failed, will retry: \(error.message)")
        }
    }

    /// Deletes the ending session's row; on failure keeps what is needed to retry.
    ///
    /// - Returns: true when nothing is left to do.
    func wipe(_ ending: Session) async -> Bool {
        guard let token else { return true }
        registered = nil
        do {
            try await registry.unregister(token: token, userId: ending.user.id, accessToken: ending.accessToken)
            return true
        } catch {
            log("push token wipe failed, will retry: \(error.message)")
            keepPendingWipe(PendingWipe(userId: ending.user.id, token: token, refreshToken: ending.refreshToken))
            return false
        }
    }

    private func finishPendingWipe() async {
        guard let wipe = pendingWipe else { return }
        do {
            let session = try await auth.exchange(refreshToken: wipe.refreshToken)
            try await registry.unregister(token: wipe.token, userId: wipe.userId, accessToken: session.accessToken)
            await auth.revoke(session)
            keepPendingWipe(nil)
        } catch where error.isOffline || (error.status ?? 0) >= 500 {
            log("push token wipe failed again, will retry: \(error.message)")
        } catch {
            // The old session is gone for good (revoked or expired): nothing can delete its row now.
            log("push token wipe abandoned: \(error.message)")
            keepPendingWipe(nil)
        }
    }

    private func keepPendingWipe(_ wipe: PendingWipe?) {
        pendingWipe = wipe
        if let wipe, let data = try? JSONCoding.encode(wipe) {
            try? store.set(data, for: Self.pendingWipeKey)
        } else {
            try? store.remove(Self.pendingWipeKey)
        }
    }
}
