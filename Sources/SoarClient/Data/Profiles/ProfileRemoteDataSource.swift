import Foundation
import SoarCore

/// The Supabase calls behind the profile screen.
public protocol ProfileRemoteDataSourceProtocol: Sendable {
    func fetchProfile(id: UUID) async throws(AppError) -> Profile?
    /// Upserts one row made of exactly these columns and answers the row as it now stands.
    func upsert(_ columns: [String: JSONValue]) async throws(AppError) -> Profile
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

    public func upsert(_ columns: [String: JSONValue]) async throws(AppError) -> Profile {
        try await client.from("profiles").upsert(columns, onConflict: "id").select().single().execute().value
    }
}
