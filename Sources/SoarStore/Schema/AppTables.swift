/// The app's tables (seed 002's schema). Adding one is a declaration here and a migration per store.
public enum AppTables {
    public static let deviceTokens = Table(
        "device_tokens",
        columns: [
            Column("user_id", .uuid, default: .callerID),
            Column("token", .text, check: .hexToken(bytes: 8...256)),
            Column("platform", .text, default: .value(.text("ios"))),
            Column("environment", .text, nullable: true, check: .oneOf(["sandbox", "production"])),
            Column("bundle_id", .text, nullable: true, check: .bundleID),
            Column("updated_at", .timestamptz, default: .now, touchedOnUpdate: true),
            Column("created_at", .timestamptz, default: .now),
        ],
        primaryKey: ["user_id", "token"], owner: "user_id")

    public static let todos = Table(
        "todos",
        columns: [
            Column("id", .uuid, default: .randomUUID),
            Column("user_id", .uuid, default: .callerID),
            Column("title", .text),
            Column("completed", .boolean, default: .value(.integer(0))),
            Column("sort_order", .bigint, default: .value(.integer(0))),
            Column("created_at", .timestamptz, default: .now),
            Column("updated_at", .timestamptz, default: .now, touchedOnUpdate: true),
        ],
        primaryKey: ["id"], owner: "user_id")

    public static let profiles = Table(
        "profiles",
        columns: [
            Column("id", .uuid, default: .callerID),
            Column("full_name", .text, nullable: true),
            Column("bio", .text, nullable: true),
            Column("phone", .text, nullable: true),
            Column("location", .text, nullable: true),
            Column("avatar_url", .text, nullable: true),
            Column("created_at", .timestamptz, nullable: true, default: .now),
            Column("updated_at", .timestamptz, nullable: true, default: .now, touchedOnUpdate: true),
        ],
        primaryKey: ["id"], owner: "id")

    public static let subscriptions = Table(
        "subscriptions",
        columns: [
            Column("id", .uuid, default: .randomUUID),
            Column("user_id", .uuid),
            Column("product_id", .text),
            Column("status", .text),
            Column("current_period_end", .timestamptz, nullable: true),
            Column("created_at", .timestamptz, default: .now),
            Column("updated_at", .timestamptz, default: .now, touchedOnUpdate: true),
        ],
        primaryKey: ["id"], owner: "user_id", clientAccess: .readOwnRows)

    public static let payments = Table(
        "payments",
        columns: [
            Column("id", .uuid, default: .randomUUID),
            Column("user_id", .uuid),
            Column("amount_cents", .bigint),
            Column("currency", .text),
            Column("status", .text),
            Column("created_at", .timestamptz, default: .now),
        ],
        primaryKey: ["id"], owner: "user_id", clientAccess: .readOwnRows)

    /// The server-side inbox: written by the push functions, read and marked by its owner.
    public static let notifications = Table(
        "notifications",
        columns: [
            Column("id", .uuid, default: .randomUUID),
            Column("user_id", .uuid),
            Column("title", .text, nullable: true),
            Column("body", .text, nullable: true),
            Column("payload", .jsonb, default: .value(.text("{}"))),
            Column("send_id", .uuid, nullable: true),
            Column("created_at", .timestamptz, default: .now),
            Column("read_at", .timestamptz, nullable: true),
            Column("opened_at", .timestamptz, nullable: true),
        ],
        primaryKey: ["id"], owner: "user_id", clientAccess: .markOwnRows(["read_at", "opened_at"]))

    public static let all = [deviceTokens, todos, profiles, subscriptions, payments, notifications]

    public static func named(_ name: String) -> Table? { all.first { $0.name == name } }
}
