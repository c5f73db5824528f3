import SoarStore

/// A push's kind (`early_viral_alert`, `security`): what a user mutes in their preferences
/// (`notification_preferences`, a table of the app's migrations), carried as `kind` in the
/// payload so the app can tell them apart.
enum PushKind {
    /// Lowercase letters, digits, `_`, `.`, `-`; 64 at most.
    static func checked(_ text: String?) throws(PushError) -> String? {
        guard let text else { return nil }
        guard !text.isEmpty, text.count <= 64, text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0) }) else {
            throw .invalid("kind must be 1 to 64 of a-z, 0-9, _ . - (\"\(text.prefix(70))\" is not)")
        }
        return text
    }

    /// The devices whose user muted `kind` left out: a condition on `device_tokens`, or nil when
    /// nothing is muted (no kind, a critical kind, or no preferences table in the app's schema).
    static func unmuted(_ kind: String?, critical: Set<String>, store: any DataStore) -> RowQuery.Condition? {
        guard let kind, !critical.contains(kind), let table = store.tables["notification_preferences"],
            ["user_id", "kind", "enabled"].allSatisfy({ table.column($0) != nil })
        else { return nil }
        let muted = RowQuery.Condition.all([
            .compare(column: "kind", op: .eq, operand: .value(.text(kind))), .compare(column: "enabled", op: .is, operand: .isFalse),
        ])
        return .not(.related(relation: "notification_preferences", join: [RowQuery.Join(related: "user_id", own: "user_id")], condition: muted))
    }
}
