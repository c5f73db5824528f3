import Foundation
import SoarClient
import Synchronization

/// A notification center whose user answers the prompt as told, and that counts what it was asked.
public final class FakeNotificationCenter: UserNotificationCenter {
    private struct State {
        var status: AuthorizationStatus
        var grants: Bool
        var requests: [AuthorizationOptions] = []
        var badge = 0
        var removed: [String] = []
    }

    private let state: Locked<State>

    /// - Parameters:
    ///   - status: the status before any prompt.
    ///   - grants: what the user answers to the prompt.
    public init(status: AuthorizationStatus = .notDetermined, grants: Bool = true) {
        state = Locked(State(status: status, grants: grants))
    }

    public func authorizationStatus() async -> AuthorizationStatus { state.withLock { $0.status } }

    public func requestAuthorization(options: AuthorizationOptions) async throws -> Bool {
        state.withLock { state in
            state.requests.append(options)
            if state.status == .notDetermined { state.status = state.grants ? .authorized : .denied }
            return state.status.allowsNotifications
        }
    }

    public func setBadgeCount(_ count: Int) async { state.withLock { $0.badge = count } }

    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) async {
        state.withLock { $0.removed += identifiers }
    }

    public var requests: [AuthorizationOptions] { state.withLock { $0.requests } }
    public var badge: Int { state.withLock { $0.badge } }
    /// The identifiers the app asked to take out of Notification Center, in order.
    public var removed: [String] { state.withLock { $0.removed } }
    public func set(status: AuthorizationStatus) { state.withLock { $0.status = status } }
}

/// APNs registration that hands a fixed token to a callback, as the app delegate would.
public final class FakeRemoteRegistration: RemoteNotificationRegistering {
    private let state = Locked<(token: Data?, count: Int, deliver: (@Sendable (Data) async -> Void)?)>((nil, 0, nil))

    /// - Parameter token: the token APNs "gives"; nil acts as the Simulator, which never gets one.
    public init(token: Data?) {
        state.withLock { $0.token = token }
    }

    /// Where tokens go: typically `controller.handleDeviceToken`.
    public func deliver(to handler: @escaping @Sendable (Data) async -> Void) {
        state.withLock { $0.deliver = handler }
    }

    public func registerForRemoteNotifications() async {
        let (token, deliver) = state.withLock { state in
            state.count += 1
            return (state.token, state.deliver)
        }
        if let token, let deliver { await deliver(token) }
    }

    public var registrations: Int { state.withLock { $0.count } }
}
