#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// `UIApplication.registerForRemoteNotifications()` as the ``RemoteNotificationRegistering``.
    public struct ApplicationRegistration: RemoteNotificationRegistering {
        public init() {}

        public func registerForRemoteNotifications() async {
            await MainActor.run { UIApplication.shared.registerForRemoteNotifications() }
        }
    }
#endif
