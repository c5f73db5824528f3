import Foundation
import SoarCore

/// The topics the signed-in user follows (`push_topic_subscriptions`, the starter's), and those
/// one of their devices follows by itself (`push_topic_device_subscriptions`): send-push's
/// `{"topic": ...}` reaches the devices of everyone who follows it, and each device that does.
public struct PushTopics: Sendable {
    private let client: Soar

    public init(client: Soar) {
        self.client = client
    }

    private struct Row: Codable {
        let topic: String
    }

    /// The topics followed, in name order.
    public func followed() async throws(AppError) -> [String] {
        let rows: [Row] = try await client.from("push_topic_subscriptions").select("topic").order("topic").execute().value
        return rows.map(\.topic)
    }

    /// Follows a topic (following it again changes nothing).
    public func follow(_ topic: String) async throws(AppError) {
        guard let user = client.auth.currentUser?.id else { throw AppError(.authentication, AppError.Messages.authentication) }
        try await client.from("push_topic_subscriptions")
            .upsert(["user_id": user.uuidString.lowercased(), "topic": topic], onConflict: "user_id,topic", ignoreDuplicates: true).execute()
    }

    public func unfollow(_ topic: String) async throws(AppError) {
        try await client.from("push_topic_subscriptions").delete().eq("topic", value: topic).execute()
    }

    private struct DeviceRow: Codable {
        let topic: String
    }

    /// The topics this device follows by itself (its APNs token, hex), in name order.
    public func followed(onDevice token: String) async throws(AppError) -> [String] {
        let rows: [DeviceRow] = try await client.from("push_topic_device_subscriptions").select("topic")
            .eq("token", value: token.lowercased()).order("topic").execute().value
        return rows.map(\.topic)
    }

    /// Makes this device, and none of the user's others, follow a topic.
    public func follow(_ topic: String, onDevice token: String) async throws(AppError) {
        guard let user = client.auth.currentUser?.id else { throw AppError(.authentication, AppError.Messages.authentication) }
        try await client.from("push_topic_device_subscriptions")
            .upsert(["user_id": user.uuidString.lowercased(), "token": token.lowercased(), "topic": topic], onConflict: "user_id,token,topic", ignoreDuplicates: true)
            .execute()
    }

    public func unfollow(_ topic: String, onDevice token: String) async throws(AppError) {
        try await client.from("push_topic_device_subscriptions").delete().eq("token", value: token.lowercased()).eq("topic", value: topic).execute()
    }
}
