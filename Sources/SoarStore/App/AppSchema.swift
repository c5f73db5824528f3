import SoarMigrations
import SoarSchema

/// The app's side of the schema: the starter migration Soar ships, and the folder the app keeps.
public enum AppSchema {
    /// The Supabase CLI's folder, relative to the working directory.
    public static let folder = "supabase/migrations"

    /// The seed app's tables, policies and grants (what `soar init` writes): the migrations used
    /// when the app has no folder of its own.
    public static let starter = file(Migrations.starter)

    /// The seed app's avatars bucket and its storage policies.
    public static let avatars = file(Migrations.avatars)

    /// Push preferences by kind.
    public static let preferences = file(Migrations.preferences)

    /// Push topics users follow.
    public static let topics = file(Migrations.topics)

    /// Device attributes send-push's segments filter on.
    public static let deviceAttributes = file(Migrations.deviceAttributes)

    /// Each user's quiet hours.
    public static let quietHours = file(Migrations.quietHours)

    /// Push topics single devices follow.
    public static let deviceTopics = file(Migrations.deviceTopics)

    /// Every migration Soar ships for the app, in order.
    public static let starters = [starter, avatars, preferences, topics, deviceAttributes, quietHours, deviceTopics]

    private static func file(_ file: Migrations.File) -> MigrationFile {
        let stem = String(file.name.dropLast(4))
        let parts = stem.split(separator: "_", maxSplits: 1).map(String.init)
        return MigrationFile(version: parts[0], name: parts[1], sql: file.sql, path: "\(folder)/\(file.name)")
    }

    /// The tables of the starter that a database made before the app's migrations already holds
    /// (Soar created them itself then); such a database is upgraded in place.
    static let legacyTables = ["device_tokens", "todos", "profiles", "subscriptions", "payments", "notifications"]

    /// The most device tokens of other users one user may take over (register) in an hour: a
    /// phone that changes hands moves once; a user moving tokens by the dozen is taking them.
    static let movesPerHour = 10
    static let tooManyMoves = "device tokens of other users were registered to this user \(movesPerHour) times in the last hour; try again later"

    /// The one-owner rule is Soar's push machinery, not the app's: it is put back on the app's
    /// `device_tokens` after every migration (a migration may have dropped and made the table again).
    static func ownsDeviceTokens(_ schema: Schema) -> Bool {
        guard let table = schema.relation("device_tokens"), !table.isView else { return false }
        return table.column("token") != nil && table.column("user_id") != nil
    }
}

/// A store failure while migrating, as the migration error its message already is.
func migrating<T>(_ work: () throws(StoreError) -> T) throws(MigrationError) -> T {
    do { return try work() } catch { throw MigrationError(error.message) }
}
