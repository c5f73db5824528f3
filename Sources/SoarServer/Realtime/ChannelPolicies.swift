import SoarRealtime
import SoarStore

/// Private channels under the app's policies on `realtime.messages`, as Supabase's Realtime
/// Authorization: SELECT (for `broadcast` or `presence`) to join, INSERT to send each kind.
/// Topics under `console:` are the console's alone (``ConsoleLive``).
struct ChannelPolicies: ChannelAuthority {
    let store: any Store

    func rights(topic: String, identity: RealtimeIdentity) -> Result<ChannelRights, RealtimeError> {
        // The console's topics are Soar's, whatever the app's policies say; its sockets hear nothing else.
        if topic.hasPrefix("console:") {
            guard identity.role == ConsoleLive.role else { return .failure(RealtimeError("\(topic) is the console's: only its administrators' pages join it")) }
            guard topic == ConsoleLive.topic else { return .failure(RealtimeError("the console has no topic \(topic); its page joins \(ConsoleLive.topic)")) }
            return .success(ChannelRights(read: true, broadcast: false, presence: false))
        }
        guard identity.role != ConsoleLive.role else { return .failure(RealtimeError("the console's socket joins only \(ConsoleLive.topic)")) }
        let access = Access(role: Access.Role(rawValue: identity.role) ?? .anon, userID: identity.userID)
        do {
            let broadcast = try store.channelAccess(topic: topic, extension: "broadcast", as: access)
            let presence = try store.channelAccess(topic: topic, extension: "presence", as: access)
            return .success(ChannelRights(read: broadcast.read || presence.read, broadcast: broadcast.write, presence: presence.write))
        } catch {
            return .failure(RealtimeError("the channel's policies could not be checked: \(error.message)"))
        }
    }
}
