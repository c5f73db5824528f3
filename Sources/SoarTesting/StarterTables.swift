import SoarSchema
import SoarStore

/// The starter migration's tables, for tests that call a store directly (a server reads the same
/// ones from its store once the starter is applied).
public enum StarterTables {
    public static let schema: Schema = {
        var translator = SQLiteTranslator(schema: Schema())
        for statement in try! SQLParser.parse(AppSchema.starter.sql) { _ = try! translator.translate(statement) }
        return translator.schema
    }()

    public static let deviceTokens = table("device_tokens")
    public static let todos = table("todos")
    public static let profiles = table("profiles")
    public static let subscriptions = table("subscriptions")
    public static let payments = table("payments")
    public static let notifications = table("notifications")

    private static func table(_ name: String) -> Table { Table(schema.relation(name)!, schema: schema) }
}
