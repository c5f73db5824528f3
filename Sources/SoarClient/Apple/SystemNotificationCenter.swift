#if canImport(UserNotifications)
    import Foundation
    import UserNotifications

    /// UNUserNotificationCenter as the ``UserNotificationCenter``.
    public struct SystemNotificationCenter: UserNotificationCenter {
        public init() {}

        public func authorizationStatus() async -> AuthorizationStatus {
            switch await UNUserNotificationCenter.current().notificationSettings().authorizationStatus {
            case .authorized: .authorized
            case .denied: .denied
            case .provisional: .provisional
            #if os(iOS)
                case .ephemeral: .ephemeral
            #endif
            default: .notDetermined
            }
        }

        public func requestAuthorization(options: AuthorizationOptions) async throws -> Bool {
            var system: UNAuthorizationOptions = []
            if options.contains(.alert) { system.insert(.alert) }
            if options.contains(.badge) { system.insert(.badge) }
            if options.contains(.sound) { system.insert(.sound) }
            if options.contains(.provisional) { system.insert(.provisional) }
            return try await UNUserNotificationCenter.current().requestAuthorization(options: system)
        }

        public func setBadgeCount(_ count: Int) async {
            try? await UNUserNotificationCenter.current().setBadgeCount(count)
        }

        public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) async {
            UNUserNotificationCenter.current().removeDeliveredNotifications(withIdentifiers: identifiers)
        }
    }

    extension PresentationOptions {
        /// The same options in UserNotifications' type, for `willPresent`'s completion.
        public var system: UNNotificationPresentationOptions {
            var options: UNNotificationPresentationOptions = []
            if contains(.banner) { options.insert(.banner) }
            if contains(.list) { options.insert(.list) }
            if contains(.sound) { options.insert(.sound) }
            if contains(.badge) { options.insert(.badge) }
            return options
        }
    }

    extension IncomingNotification {
        /// A delivered notification, as `willPresent` and `didReceive` hand it over.
        public init(_ notification: UNNotification) throws {
            try self.init(identifier: notification.request.identifier, userInfo: notification.request.content.userInfo, date: notification.date)
        }
    }
#endif
