import Foundation
import SoarClient

/// The app's own device-token registry, on SoarClient's public API: an upsert into
/// `device_tokens` on `(user_id, token)`, and on sign-out a delete made as the ending session
/// (its token in `Authorization`) that says so when it matched no row.
public struct AppDeviceTokens: DeviceTokenRegistry {
    let client: Soar

    public init(client: Soar) { self.client = client }

    public func register(_ registration: DeviceToken, accessToken: String) async throws(AppError) {
        try await client.from("device_tokens").upsert(registration, onConflict: "user_id,token")
            .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute()
    }

    public func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError) {
        let deleted: [DeviceToken] = try await client.from("device_tokens").delete()
            .eq("user_id", value: userId).eq("token", value: token).select()
            .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute().value
        if deleted.isEmpty { throw AppError(.notFound, "This device's token row was not found to delete.") }
    }
}
