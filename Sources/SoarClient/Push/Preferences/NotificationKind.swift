/// A kind of notification the app sends (`kind` in send-push), as its settings screen lists it.
public struct NotificationKind: Sendable, Hashable, Identifiable {
    /// The kind as the server knows it (`early_viral_alert`).
    public let id: String
    /// What the settings screen shows.
    public let title: String
    /// Sent whatever the user chose (the server's `SOAR_PUSH_CRITICAL_KINDS`): shown, not switchable.
    public let critical: Bool

    public init(id: String, title: String, critical: Bool = false) {
        self.id = id
        self.title = title
        self.critical = critical
    }
}
