import Foundation
import SoarCore

/// The topics the signed-in user follows (`push_topic_subscriptions`, the starter's): send-push's
/// `{"topic": ...}` reaches the devices of everyone who follows it.
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
}
