import Observation

/// A permission the pre-prompt screen explains before the system asks.
public enum PermissionKind: String, Sendable, CaseIterable, Hashable {
    case notifications, photos, camera, tracking
}

/// A permission's state, the same words for each kind.
public enum PermissionState: String, Sendable, Hashable {
    case notDetermined, denied, restricted, authorized, limited
}

/// What the row's button does.
public enum PermissionAction: Sendable, Hashable {
    /// Shows the system prompt.
    case ask
    /// The prompt will not show again: the button opens the app's page in Settings.
    case openSettings
    /// Granted: nothing to do.
    case none
}

/// One kind of permission on one platform: UNUserNotificationCenter, PHPhotoLibrary,
/// AVCaptureDevice, ATTrackingManager, or a fake.
public protocol PermissionProvider: Sendable {
    func status() async -> PermissionState
    /// Shows the prompt (when it still can) and returns the state after it.
    func request() async -> PermissionState
}

/// Opens the app's page in the Settings app.
public protocol SettingsOpening: Sendable {
    func openSettings() async
}

/// The permissions screen: each kind with its state and its button's action.
@MainActor @Observable
public final class PermissionsModel {
    public struct Item: Sendable, Hashable, Identifiable {
        public var kind: PermissionKind
        public var state: PermissionState
        public var id: PermissionKind { kind }

        public var action: PermissionAction {
            switch state {
            case .notDetermined: .ask
            case .denied, .restricted: .openSettings
            case .authorized, .limited: .none
            }
        }
    }

    public private(set) var items: [Item]
    @ObservationIgnored private let providers: [PermissionKind: any PermissionProvider]
    @ObservationIgnored private let settings: any SettingsOpening

    /// - Parameter providers: the kinds the app uses; the screen lists them in ``PermissionKind`` order.
    public init(providers: [PermissionKind: any PermissionProvider], settings: any SettingsOpening) {
        self.providers = providers
        self.settings = settings
        items = PermissionKind.allCases.filter { providers[$0] != nil }.map { Item(kind: $0, state: .notDetermined) }
    }

    public func refresh() async {
        for index in items.indices {
            if let provider = providers[items[index].kind] { items[index].state = await provider.status() }
        }
    }

    /// Runs the row's action: the prompt, or Settings.
    public func perform(_ kind: PermissionKind) async {
        guard let index = items.firstIndex(where: { $0.kind == kind }), let provider = providers[kind] else { return }
        switch items[index].action {
        case .ask: items[index].state = await provider.request()
        case .openSettings: await settings.openSettings()
        case .none: break
        }
    }
}

/// Notifications as a ``PermissionProvider``, through the controller (so a grant registers with APNs).
public struct NotificationPermission: PermissionProvider {
    private let controller: NotificationsController

    public init(controller: NotificationsController) {
        self.controller = controller
    }

    public func status() async -> PermissionState {
        await controller.refreshAuthorizationStatus()
        return Self.state(await controller.authorizationStatus)
    }

    public func request() async -> PermissionState {
        await controller.requestAuthorization()
        return Self.state(await controller.authorizationStatus)
    }

    static func state(_ status: AuthorizationStatus) -> PermissionState {
        switch status {
        case .notDetermined: .notDetermined
        case .denied: .denied
        case .authorized, .ephemeral: .authorized
        case .provisional: .limited
        }
    }
}
