import Foundation
import SoarCore

/// What the profile screen may ask for; results never throw.
public protocol ProfileRepositoryProtocol: Sendable {
    func load(userId: UUID) async -> AppResult<Profile>
    /// Writes one field and answers the profile as it now stands.
    func update(_ field: Profile.Field, to value: String?, userId: UUID) async -> AppResult<Profile>
    /// Stores a new avatar image, then points `avatar_url` at it.
    func setAvatar(_ image: Data, contentType: String, userId: UUID) async -> AppResult<Profile>
}

extension ProfileRepositoryProtocol {
    public func setAvatar(_ image: Data, contentType: String, userId: UUID) async -> AppResult<Profile> {
        .failure(AppError(.validation, "Avatars are not set up in this app."))
    }
}

/// The profile feature: edits are written one field at a time, so a change never overwrites the
/// other columns (only `id`, `updated_at` and that column are sent).
public struct ProfileRepository: ProfileRepositoryProtocol {
    private let remote: any ProfileRemoteDataSourceProtocol
    private let avatars: (any AvatarStoring)?
    private let now: @Sendable () -> Date

    /// - Parameter avatars: where avatar images go (``StorageAvatarStore``); nil: no avatars.
    public init(remote: any ProfileRemoteDataSourceProtocol, avatars: (any AvatarStoring)? = nil, now: @escaping @Sendable () -> Date = Date.init) {
        self.remote = remote
        self.avatars = avatars
        self.now = now
    }

    /// Uploads the image (an image type, 5 MB at most, as the starter's bucket takes), then
    /// writes `avatar_url`: a failed upload leaves the profile as it was.
    public func setAvatar(_ image: Data, contentType: String, userId: UUID) async -> AppResult<Profile> {
        await AppResult {
            guard let avatars else { throw AppError(.validation, "Avatars are not set up in this app.") }
            guard contentType.lowercased().hasPrefix("image/") else { throw AppError.validation("Choose an image for the avatar.") }
            guard image.count <= 5_242_880 else { throw AppError.validation("Choose an image of 5 MB or less.") }
            let url = try await avatars.store(image, contentType: contentType, userId: userId)
            return try await remote.upsert([
                "id": .string(userId.uuidString.lowercased()), "updated_at": .string(Timestamp.format(now())),
                Profile.Field.avatarURL.rawValue: .string(url.absoluteString),
            ])
        }
    }

    /// The user's profile; a user who never saved one gets an empty profile.
    public func load(userId: UUID) async -> AppResult<Profile> {
        await AppResult { try await remote.fetchProfile(id: userId) ?? Profile(id: userId) }
    }

    /// Writes one field; blank text clears it (null).
    public func update(_ field: Profile.Field, to value: String?, userId: UUID) async -> AppResult<Profile> {
        await AppResult {
            let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines)
            if field == .phone, let trimmed, !trimmed.isEmpty,
                !trimmed.allSatisfy({ $0.isNumber || "+-() ".contains($0) })
            {
                throw AppError.validation("Enter a phone number with digits, spaces, +, - or brackets.")
            }
            return try await remote.upsert([
                "id": .string(userId.uuidString.lowercased()),
                "updated_at": .string(Timestamp.format(now())),
                field.rawValue: trimmed.flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null,
            ])
        }
    }
}
