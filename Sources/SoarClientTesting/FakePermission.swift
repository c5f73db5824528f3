import SoarClient
import Synchronization

/// A permission whose prompt the user answers as told.
public final class FakePermission: PermissionProvider {
    private let state: Locked<(current: PermissionState, answer: PermissionState, prompts: Int)>

    public init(_ current: PermissionState = .notDetermined, answers answer: PermissionState = .authorized) {
        state = Locked((current, answer, 0))
    }

    public var prompts: Int { state.withLock { $0.prompts } }

    public func status() async -> PermissionState { state.withLock { $0.current } }

    public func request() async -> PermissionState {
        state.withLock { state in
            guard state.current == .notDetermined else { return state.current }
            state.prompts += 1
            state.current = state.answer
            return state.current
        }
    }
}

/// Counts how often Settings was opened.
public final class FakeSettingsOpener: SettingsOpening {
    private let count = Locked(0)

    public init() {}

    public var opened: Int { count.withLock { $0 } }
    public func openSettings() async { count.withLock { $0 += 1 } }
}
