import Foundation
import SoarCore

/// Where the registrar writes and deletes device rows; each call names the session's token, so a
/// wipe can use the session that is ending.
public protocol DeviceTokenRegistry: Sendable {
    func register(_ registration: DeviceToken, accessToken: String) async throws(AppError)
    func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError)
}

/// Seed 000's way: an idempotent upsert into `device_tokens` on `(user_id, token)`.
public struct DataAPIDeviceTokens: DeviceTokenRegistry {
    private let client: Soar

    public init(client: Soar) {
        self.client = client
    }

    public func register(_ registration: DeviceToken, accessToken: String) async throws(AppError) {
        try await client.from("device_tokens").upsert(registration, onConflict: "user_id,token")
            .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute()
    }

    public func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError) {
        try await client.from("device_tokens").delete().eq("user_id", value: userId).eq("token", value: token)
            .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute()
    }
}

/// Seed 001's way: the creator API's `POST` and `DELETE /api/creator/device_tokens`.
public struct CreatorAPIDeviceTokens: DeviceTokenRegistry {
    private let client: Soar

    public init(client: Soar) {
        self.client = client
    }

    private struct Body: Encodable {
        var token: String
        var platform: String?
        var environment: String?
        var bundleId: String?

        enum CodingKeys: String, CodingKey {
            case token, platform, environment
            case bundleId = "bundle_id"
        }
    }

    public func register(_ registration: DeviceToken, accessToken: String) async throws(AppError) {
        let body = Body(token: registration.token, platform: registration.platform, environment: registration.environment, bundleId: registration.bundleId)
        try await send("POST", body, accessToken)
    }

    public func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError) {
        try await send("DELETE", Body(token: token), accessToken)
    }

    private func send(_ method: String, _ body: Body, _ accessToken: String) async throws(AppError) {
        let data = (try? JSONCoding.encode(body)) ?? Data()
        _ = try await client.backend.send(Backend.Request(method: method, path: "api/creator/device_tokens", body: data), bearer: accessToken)
    }
}
