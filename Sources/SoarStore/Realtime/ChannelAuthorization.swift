import SoarCore

/// What the app's policies on `realtime.messages` let a caller do on a private channel's topic,
/// as Supabase's Realtime Authorization reads them: SELECT to join (receive), INSERT to send.
public struct ChannelAccess: Sendable, Equatable {
    public var read: Bool
    public var write: Bool

    public init(read: Bool, write: Bool) {
        self.read = read
        self.write = write
    }
}

/// Checks a private channel against the app's policies (`realtime.topic()` is the topic while
/// they run; `extension` is `broadcast` or `presence`).
public protocol ChannelAuthorizing: Sendable {
    func channelAccess(topic: String, extension kind: String, as access: Access) throws(StoreError) -> ChannelAccess
}
