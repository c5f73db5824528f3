/// Whether the user lets the app notify them, as the system reports it.
public enum AuthorizationStatus: String, Sendable, Hashable, CaseIterable {
    case notDetermined, denied, authorized, provisional, ephemeral

    /// True when notifications may be shown (fully, quietly, or for an App Clip's while).
    public var allowsNotifications: Bool { self == .authorized || self == .provisional || self == .ephemeral }
}

/// What a permission request asks for.
public struct AuthorizationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let alert = AuthorizationOptions(rawValue: 1 << 0)
    public static let badge = AuthorizationOptions(rawValue: 1 << 1)
    public static let sound = AuthorizationOptions(rawValue: 1 << 2)
    public static let provisional = AuthorizationOptions(rawValue: 1 << 3)
}

/// How a notification that arrives while the app is in the foreground is shown.
public struct PresentationOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let banner = PresentationOptions(rawValue: 1 << 0)
    public static let list = PresentationOptions(rawValue: 1 << 1)
    public static let sound = PresentationOptions(rawValue: 1 << 2)
    public static let badge = PresentationOptions(rawValue: 1 << 3)

    /// `[.banner, .list, .sound]`.
    public var description: String {
        let names: [(PresentationOptions, String)] = [(.banner, ".banner"), (.list, ".list"), (.sound, ".sound"), (.badge, ".badge")]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// The system's notification center: UNUserNotificationCenter on Apple platforms, a fake in tests.
public protocol UserNotificationCenter: Sendable {
    func authorizationStatus() async -> AuthorizationStatus
    /// Shows the system prompt the first time; later calls answer at once.
    ///
    /// - Returns: whether notifications are allowed.
    func requestAuthorization(options: AuthorizationOptions) async throws -> Bool
    func setBadgeCount(_ count: Int) async
    /// Takes these notifications out of Notification Center (a remote notification's identifier
    /// is its `apns-collapse-id` when it has one).
    func removeDeliveredNotifications(withIdentifiers identifiers: [String]) async
}

/// The app's side of APNs registration: `UIApplication.registerForRemoteNotifications()`.
///
/// The token (or the failure) comes back later, through
/// ``NotificationsController/handleDeviceToken(_:)``.
public protocol RemoteNotificationRegistering: Sendable {
    func registerForRemoteNotifications() async
}
