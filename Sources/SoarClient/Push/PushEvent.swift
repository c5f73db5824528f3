import SoarCore

/// What happened in the push pipeline, as ``NotificationsController/events()`` streams it.
public enum PushEvent: Sendable, Hashable {
    /// A notification arrived while the app was in the foreground.
    case arrival(IncomingNotification)
    /// The user tapped a notification; the route is the screen it opens, if any.
    case tap(IncomingNotification, AppRoute?)
    /// APNs gave a new device token (lowercase hex), or nil once it was cleared.
    case tokenChanged(String?)
    case authorizationChanged(AuthorizationStatus)
}
