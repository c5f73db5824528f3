import Foundation
import SoarCore

/// The Supabase calls behind the profile screen.
public protocol ProfileRemoteDataSourceProtocol: Sendable {
    func fetchProfile(id: UUID) async throws(AppError) -> Profile?
    /// Upserts one row made of exactly these columns.
    func upsert(_ columns: [String: JSONValue]) async throws(AppError)
}

/// `profiles` through the data API.
public struct ProfileRemoteDataSource: ProfileRemoteDataSourceProtocol {
    private let client: Soar

    public init(client: Soar) {
        self.client = client
    }

    public func fetchProfile(id: UUID) async throws(AppError) -> Profile? {
        let rows: [Profile] = try await client.from("profiles").select().eq("id", value: id).limit(1).execute().value
        return rows.first
    }

    public func upsert(_ columns: [String: JSONValue]) async throws(AppError) {
        try await client.from("profiles").upsert(columns, onConflict: "id").execute()
    }
}

/// The profile feature: edits are written one field at a time, so a change never overwrites the
/// other columns (only `id`, `updated_at` and that column are sent).
public struct ProfileRepository: Sendable {
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
    public func update(_ field: Profile.Field, to value: String?, userId: UUID) async -> AppResult<Void> {
        await AppResult {
            let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines)
            if field == .phone, let trimmed, !trimmed.isEmpty,
                !trimmed.allSatisfy({ $0.isNumber || "+-() ".contains($0) })
            {
                throw AppError.validation("Enter a phone number with digits, spaces, +, - or brackets.")
            }
            try await remote.upsert([
                "id": .string(userId.uuidString.lowercased()),
                "updated_at": .string(Timestamp.format(now())),
                field.rawValue: trimmed.flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null,
            ])
        }
    }
}
