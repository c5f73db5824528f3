import Foundation
import Observation
import SoarCore

/// The profile screen's state: one ``UiState`` of the profile, and the last failed edit's message.
@MainActor @Observable
public final class ProfileViewModel {
    public private(set) var state: UiState<Profile> = .idle
    /// The last failed edit's message, for a toast; the profile shown stays as it was.
    public private(set) var actionError: String?

    private let repository: any ProfileRepositoryProtocol
    private let userId: UUID

    public init(repository: any ProfileRepositoryProtocol, userId: UUID) {
        self.repository = repository
        self.userId = userId
    }

    public func load() async {
        if state.value == nil { state = .loading }
        state = UiState(await repository.load(userId: userId))
    }

    /// Saves one field (blank clears it); the profile shown becomes the server's row.
    public func update(_ field: Profile.Field, to value: String?) async {
        apply(await repository.update(field, to: value, userId: userId))
    }

    /// Sets a new avatar (see ``ProfileRepository/setAvatar(_:contentType:userId:)``).
    public func setAvatar(_ image: Data, contentType: String) async {
        apply(await repository.setAvatar(image, contentType: contentType, userId: userId))
    }

    /// An edit's answer: the server's row shown, or its message kept for a toast.
    private func apply(_ result: AppResult<Profile>) {
        switch result {
        case .success(let profile):
            state = .data(profile)
            actionError = nil
        case .failure(let error):
            actionError = error.message
        }
    }
}
