import Foundation
import Observation
import SoarCore

/// The notification settings screen: each kind the app sends with its switch. A switch flips at
/// once and flips back, with a message, when the server did not take it.
@MainActor @Observable
public final class NotificationPreferencesViewModel {
    public private(set) var state: UiState<[NotificationKind]> = .idle
    /// Whether each kind is on (a kind never set is on; a critical one always is).
    public private(set) var enabled: [String: Bool] = [:]
    /// The last failed change's message, for a toast.
    public private(set) var actionError: String?

    private let kinds: [NotificationKind]
    private let repository: any NotificationPreferencesRepositoryProtocol
    private let userId: UUID

    public init(kinds: [NotificationKind], repository: any NotificationPreferencesRepositoryProtocol, userId: UUID) {
        self.kinds = kinds
        self.repository = repository
        self.userId = userId
    }

    public func isEnabled(_ kind: NotificationKind) -> Bool { kind.critical || enabled[kind.id] ?? true }

    public func load() async {
        if state.value == nil { state = .loading }
        switch await repository.load(userId: userId) {
        case .success(let chosen):
            enabled = chosen
            state = .data(kinds)
        case .failure(let error):
            state = .error(error.message)
        }
    }

    /// Turns a kind on or off; a critical kind stays on.
    public func set(_ kind: NotificationKind, enabled on: Bool) async {
        guard !kind.critical else {
            actionError = "\(kind.title) notifications are always sent."
            return
        }
        let before = enabled[kind.id]
        enabled[kind.id] = on
        switch await repository.set(kind.id, enabled: on, userId: userId) {
        case .success: actionError = nil
        case .failure(let error):
            enabled[kind.id] = before
            actionError = error.message
        }
    }
}
