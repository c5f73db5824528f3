import Foundation
import SoarCore

/// What the profile screen may ask for; results never throw.
public protocol ProfileRepositoryProtocol: Sendable {
    func load(userId: UUID) async -> AppResult<Profile>
    /// Writes one field and answers the profile as it now stands.
    func update(_ field: Profile.Field, to value: String?, userId: UUID) async -> AppResult<Profile>
}

/// The profile feature: edits are written one field at a time, so a change never overwrites the
/// other columns (only `id`, `updated_at` and that column are sent).
public struct ProfileRepository: ProfileRepositoryProtocol {
    private let remote: any ProfileRemoteDataSourceProtocol
    private let now: @Sendable () -> Date

    public init(remote: any ProfileRemoteDataSourceProtocol, now: @escaping @Sendable () -> Date = Date.init) {
        self.remote = remote
        self.now = now
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
