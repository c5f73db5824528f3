import Foundation
import Observation
import SoarCore

/// The app's push pipeline in one place: permission, the device token, foreground arrivals, the
/// inbox and its badge, and taps turned into routes.
///
/// The app delegate forwards the system's callbacks here (``handleDeviceToken(_:)``,
/// ``willPresent(_:)``, ``didReceive(_:)``); views read the observable state and ``events()``.
/// No method swizzling: everything arrives through these calls.
@MainActor @Observable
public final class NotificationsController {
    public private(set) var authorizationStatus: AuthorizationStatus = .notDetermined
    /// The device token (lowercase hex) while someone is signed in; nil before APNs gave one and
    /// after sign-out. The test-push button needs it.
    public private(set) var pushToken: String?
    public private(set) var inbox = Inbox()
    /// The last registration failure APNs reported, for the debug screen.
    public private(set) var registrationError: String?
    public let router: DeepLinkRouter
    /// The app's routes: which payload keys and links open which screens.
    public let routes: RouteTable

    @ObservationIgnored private let center: any UserNotificationCenter
    @ObservationIgnored private let registration: any RemoteNotificationRegistering
    @ObservationIgnored private let registrar: PushTokenRegistrar?
    @ObservationIgnored private let inboxSync: (any InboxSyncing)?
    @ObservationIgnored private let now: @Sendable () -> Date
    @ObservationIgnored private let broadcast = Broadcast<PushEvent>()
    /// Whose inbox this is.
    @ObservationIgnored private var userID: UUID?

    /// What is shown for a notification that arrives in the foreground.
    public static let foregroundPresentation: PresentationOptions = [.banner, .list, .sound]
    /// What a permission request asks for.
    public static let requestedOptions: AuthorizationOptions = [.alert, .badge, .sound]

    public init(
        center: any UserNotificationCenter, registration: any RemoteNotificationRegistering, routes: RouteTable, registrar: PushTokenRegistrar? = nil,
        inboxSync: (any InboxSyncing)? = nil, router: DeepLinkRouter = DeepLinkRouter(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.center = center
        self.registration = registration
        self.registrar = registrar
        self.inboxSync = inboxSync
        self.router = router
        self.routes = routes
        self.now = now
    }

    /// Arrivals, taps, token and authorization changes, from now on.
    public func events() -> AsyncStream<PushEvent> { broadcast.stream() }

    public var unreadCount: Int { inbox.unreadCount }

    // MARK: permission and registration

    /// Reads the system's status; when notifications are allowed, registers with APNs again (the
    /// token can change between launches).
    public func refreshAuthorizationStatus() async {
        let status = await center.authorizationStatus()
        if status != authorizationStatus {
            authorizationStatus = status
            broadcast.yield(.authorizationChanged(status))
        }
        if status.allowsNotifications { await registration.registerForRemoteNotifications() }
    }

    /// Asks for alerts, badges and sounds; on success registers with APNs.
    ///
    /// - Returns: whether notifications are allowed now.
    @discardableResult
    public func requestAuthorization() async -> Bool {
        let granted = (try? await center.requestAuthorization(options: Self.requestedOptions)) ?? false
        await refreshAuthorizationStatus()
        return granted
    }

    /// The token APNs gave (`didRegisterForRemoteNotificationsWithDeviceToken`): hex-encoded and
    /// handed to the registrar.
    public func handleDeviceToken(_ data: Data) async {
        guard let token = try? PushToken(bytes: data) else { return }
        registrationError = nil
        if pushToken != token.hex {
            pushToken = token.hex
            broadcast.yield(.tokenChanged(token.hex))
        }
        try? await registrar?.tokenChanged(token.hex)  // hex-encoded here, so always a token
    }

    /// `didFailToRegisterForRemoteNotificationsWithError`: kept for the debug screen.
    public func handleRegistrationError(_ error: any Error) {
        registrationError = "\(error)"
    }

    // MARK: arrival and tap

    /// A notification arriving in the foreground: kept in the inbox, shown as a banner.
    public func willPresent(_ notification: IncomingNotification) async -> PresentationOptions {
        inbox.insert(InboxEntry(notification).routed(by: routes))
        broadcast.yield(.arrival(notification))
        await center.setBadgeCount(inbox.unreadCount)
        return Self.foregroundPresentation
    }

    /// A tap on a notification: the entry is read, the open is reported, its route is pending.
    ///
    /// - Returns: the route the tap opens, if the payload names a known one.
    @discardableResult
    public func didReceive(_ notification: IncomingNotification) async -> AppRoute? {
        let entry = InboxEntry(notification, isRead: true).routed(by: routes)
        inbox.insert(entry)
        inbox.markRead(entry.id)
        let route = entry.route
        if let route { router.open(route) } else { router.clear() }
        broadcast.yield(.tap(notification, route))
        await center.setBadgeCount(inbox.unreadCount)
        if entry.isOnServer { try? await inboxSync?.markOpened(entry.id, at: now()) }
        return route
    }

    /// A background notification (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`).
    /// A retraction the server sent (`soar_retract`, the collapse id of the notification it takes
    /// back) removes that notification from the inbox and from Notification Center.
    ///
    /// - Returns: whether it was a retraction.
    @discardableResult
    public func didReceiveBackground(_ notification: IncomingNotification) async -> Bool {
        guard let collapseID = notification.payload.custom[Payload.retractKey]?.stringValue else { return false }
        if let id = notification.serverID { inbox.remove(id) }
        await center.removeDeliveredNotifications(withIdentifiers: [collapseID])
        await center.setBadgeCount(inbox.unreadCount)
        return true
    }

    /// Marks an inbox entry read, here and on the server.
    public func markRead(_ id: String) async {
        guard inbox.markRead(id) else { return }
        await center.setBadgeCount(inbox.unreadCount)
        if let entry = inbox.entries.first(where: { $0.id == id }), entry.isOnServer {
            try? await inboxSync?.markRead(id, at: now())
        }
    }

    /// Merges the server's inbox into this one.
    @discardableResult
    public func syncInbox() async -> AppResult<Void> {
        guard let inboxSync else { return .success(()) }
        do {
            inbox.merge(try await inboxSync.fetch().map { $0.routed(by: routes) })
            await center.setBadgeCount(inbox.unreadCount)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Keeps the inbox live across the user's devices: `notifications` rows inserted, updated or
    /// deleted elsewhere (a push to another device, a read there) are merged as they arrive, and
    /// the badge follows. Call it before `channel.subscribe()`; the channel's user sees only their
    /// own rows, by the table's policies. The table must be in the `supabase_realtime` publication
    /// (`alter publication supabase_realtime add table notifications;`), or `subscribe()` says so.
    ///
    /// - Returns: the task that merges; cancel it (or unsubscribe the channel) to stop.
    public func followInbox(on channel: RealtimeChannel) -> Task<Void, Never> {
        let changes = channel.changes(table: "notifications")
        return Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.inboxChanged(change)
            }
        }
    }

    func inboxChanged(_ change: DatabaseChange) async {
        if change.type == "DELETE" {
            guard let id = change.oldRecord?.objectValue?["id"]?.stringValue else { return }
            inbox.remove(id)
        } else {
            guard let record = change.record, let entry = ServerInbox.entry(record) else { return }
            inbox.insert(entry.routed(by: routes))
        }
        await center.setBadgeCount(inbox.unreadCount)
    }

    // MARK: the session

    /// Follows sign-ins and sign-outs: a sign-out clears the token and the inbox; a sign-in
    /// registers with APNs again (when allowed) and loads the server's inbox. The session at hand
    /// is taken in before it returns, so the controller is ready for it then.
    ///
    /// - Returns: the task that follows later changes; cancel it to stop.
    public func follow(_ auth: any SessionProviding) async -> Task<Void, Never> {
        let changes = auth.authStateChanges
        let (ready, isReady) = AsyncStream<Void>.makeStream()
        let task = Task { [weak self] in
            defer { isReady.finish() }
            for await (event, session) in changes {
                guard let self else { return }
                await self.sessionChanged(event, session)
                isReady.finish()  // the first event, the session at hand, is taken in
            }
        }
        for await _ in ready {}
        return task
    }

    func sessionChanged(_ event: AuthChange, _ session: AuthSession?) async {
        switch event {
        case .signedOut:
            await forgetUser()
        case .signedIn, .initialSession:
            // Nobody signed in at launch: a token that already arrived is the device's, kept.
            guard let session else {
                if userID != nil { await forgetUser() }
                return
            }
            // Another user's inbox never shows under this one.
            if userID != session.user.id { await forgetUser() }
            userID = session.user.id
            await refreshAuthorizationStatus()
            await syncInbox()
        case .tokenRefreshed:
            break
        }
    }

    private func forgetUser() async {
        userID = nil
        inbox.removeAll()
        router.clear()
        await center.setBadgeCount(0)
        if pushToken != nil {
            pushToken = nil
            broadcast.yield(.tokenChanged(nil))
        }
    }
}
