/// Soar's own schema (auth, push queue and sends) per store, compiled into the binary from the SQL
/// files beside this one, and the app's starter migration (`app/`), which `soar init` writes out.
///
/// Each store applies its own list in order, once each, and records the names it applied.
/// Adding a migration: a new SQL file with the next number, and its line here. The app's tables
/// are not here: they are the app's migrations (the starter, then the app's own files).
public enum Migrations {
    public struct File: Sendable {
        public let name: String
        public let sql: String
    }

    public static let sqlite: [File] = [
        File(name: "0001_auth.sql", bytes: PackageResources._001_auth_sql),
        File(name: "0002_app.sql", bytes: PackageResources._002_app_sql),
        File(name: "0003_push.sql", bytes: PackageResources._003_push_sql),
        File(name: "0004_push_sends.sql", bytes: PackageResources._004_push_sends_sql),
        File(name: "0005_notifications.sql", bytes: PackageResources._005_notifications_sql),
        File(name: "0006_device_tokens_one_owner.sql", bytes: PackageResources._006_device_tokens_one_owner_sql),
        File(name: "0007_push_leases.sql", bytes: PackageResources._007_push_leases_sql),
        File(name: "0008_device_tokens_token_index.sql", bytes: PackageResources._008_device_tokens_token_index_sql),
        File(name: "0009_push_claims.sql", bytes: PackageResources._009_push_claims_sql),
        File(name: "0010_device_tokens_lowercase.sql", bytes: PackageResources._010_device_tokens_lowercase_sql),
        File(name: "0011_push_outcomes.sql", bytes: PackageResources._011_push_outcomes_sql),
        File(name: "0012_health.sql", bytes: PackageResources._012_health_sql),
        File(name: "0013_device_moves.sql", bytes: PackageResources._013_device_moves_sql),
        File(name: "0014_identities.sql", bytes: PackageResources._014_identities_sql),
        File(name: "0015_email_flows.sql", bytes: PackageResources._015_email_flows_sql),
        File(name: "0016_mfa.sql", bytes: PackageResources._016_mfa_sql),
        File(name: "0017_email_change.sql", bytes: PackageResources._017_email_change_sql),
        File(name: "0018_changes.sql", bytes: PackageResources._018_changes_sql),
        File(name: "0019_realtime_messages.sql", bytes: PackageResources._019_realtime_messages_sql),
        File(name: "0020_storage.sql", bytes: PackageResources._020_storage_sql),
        File(name: "0021_push_schedules.sql", bytes: PackageResources._021_push_schedules_sql),
        File(name: "0022_push_send_kinds.sql", bytes: PackageResources._022_push_send_kinds_sql),
        File(name: "0023_push_templates.sql", bytes: PackageResources._023_push_templates_sql),
        File(name: "0024_push_sends_stored_all.sql", bytes: PackageResources._024_push_sends_stored_all_sql),
        File(name: "0025_push_webhooks.sql", bytes: PackageResources._025_push_webhooks_sql),
        File(name: "0026_console_admins.sql", bytes: PackageResources._026_console_admins_sql),
        File(name: "0027_changes_rowid.sql", bytes: PackageResources._027_changes_rowid_sql),
    ]

    /// Postgres mirrors a Supabase project: its roles and auth schema first, then the same tables
    /// with row-level security policies.
    public static let postgres: [File] = [
        File(name: "0001_supabase_base.sql", bytes: PackageResources._001_supabase_base_sql),
        File(name: "0002_app_policies.sql", bytes: PackageResources._002_app_policies_sql),
        File(name: "0003_push_queue.sql", bytes: PackageResources._003_push_queue_sql),
        File(name: "0004_device_tokens_lowercase.sql", bytes: PackageResources._004_device_tokens_lowercase_sql),
        File(name: "0005_default_privileges.sql", bytes: PackageResources._005_default_privileges_sql),
        File(name: "0006_extensions_schema.sql", bytes: PackageResources._006_extensions_schema_sql),
        File(name: "0007_health.sql", bytes: PackageResources._007_health_sql),
        File(name: "0008_device_moves.sql", bytes: PackageResources._008_device_moves_sql),
        File(name: "0009_identities.sql", bytes: PackageResources._009_identities_sql),
        File(name: "0010_email_flows.sql", bytes: PackageResources._010_email_flows_sql),
        File(name: "0011_mfa.sql", bytes: PackageResources._011_mfa_sql),
        File(name: "0012_email_change.sql", bytes: PackageResources._012_email_change_sql),
        File(name: "0013_changes.sql", bytes: PackageResources._013_changes_sql),
        File(name: "0014_realtime_messages.sql", bytes: PackageResources._014_realtime_messages_sql),
        File(name: "0015_storage.sql", bytes: PackageResources._015_storage_sql),
        File(name: "0016_push_schedules.sql", bytes: PackageResources._016_push_schedules_sql),
        File(name: "0017_push_send_kinds.sql", bytes: PackageResources._017_push_send_kinds_sql),
        File(name: "0018_push_templates.sql", bytes: PackageResources._018_push_templates_sql),
        File(name: "0019_push_sends_stored_all.sql", bytes: PackageResources._019_push_sends_stored_all_sql),
        File(name: "0020_push_webhooks.sql", bytes: PackageResources._020_push_webhooks_sql),
        File(name: "0021_console_admins.sql", bytes: PackageResources._021_console_admins_sql),
    ]
}

extension Migrations {
    /// The seed app's tables, policies and grants: the first of the app's migrations.
    public static let starter = File(name: "20250101000000_starter.sql", bytes: PackageResources._0250101000000_starter_sql)
    /// Storage for the seed app's avatars: a bucket and its policies.
    public static let avatars = File(name: "20250102000000_avatars.sql", bytes: PackageResources._0250102000000_avatars_sql)
    /// Push preferences by kind: the table the settings screen writes and the server honors.
    public static let preferences = File(
        name: "20250103000000_notification_preferences.sql", bytes: PackageResources._0250103000000_notification_preferences_sql)
    /// Push topics users follow.
    public static let topics = File(name: "20250104000000_push_topics.sql", bytes: PackageResources._0250104000000_push_topics_sql)
    /// Device attributes send-push's segments filter on.
    public static let deviceAttributes = File(name: "20250105000000_device_attributes.sql", bytes: PackageResources._0250105000000_device_attributes_sql)
    /// Each user's quiet hours.
    public static let quietHours = File(name: "20250106000000_quiet_hours.sql", bytes: PackageResources._0250106000000_quiet_hours_sql)
    /// Push topics single devices follow.
    public static let deviceTopics = File(name: "20250107000000_device_topics.sql", bytes: PackageResources._0250107000000_device_topics_sql)
}

extension Migrations.File {
    init(name: String, bytes: [UInt8]) {
        self.init(name: name, sql: String(decoding: bytes, as: UTF8.self))
    }
}
