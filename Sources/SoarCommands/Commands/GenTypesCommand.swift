import Foundation
import SoarSchema
import SoarStore

/// `soar gen types swift`: Codable structs for the app's tables and views, in the seed's model
/// style, as `supabase gen types typescript` writes TypeScript.
struct GenTypesCommand: Command {
    static let name = "gen types swift"
    static let summary = "Print Swift Codable structs for the app's tables and views (after its migrations)."
    static let options = [
        Option("--db", value: "PATH", help: "SQLite file (default ./soar.db, or SOAR_DB)."),
        Option("--database-url", value: "URL", help: "PostgreSQL instead of SQLite (or DATABASE_URL)."),
        MigrationsChoice.option,
    ]
    static let discussion = """
        Pending migrations are applied first. Each relation becomes a struct named in the singular
        (todos: Todo, team_members: TeamMember), properties in camelCase with snake_case CodingKeys,
        optionals for nullable columns, UUID, Date, Decimal, Int, Bool and JSONValue (SoarCore)
        for their types, Identifiable when there is an `id` column; each enum becomes a String enum.
        Exit codes: 0 printed; 2 the database cannot be opened or a migration fails.
        """

    let database: DatabaseChoice
    let migrations: MigrationsChoice

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        database = try DatabaseChoice(arguments)
        migrations = try MigrationsChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        let store = try database.open(app: try migrations.files())
        defer { store.close() }
        var schema = Schema()
        for table in store.tables.values {
            schema.relations[table.name] = table.relation
            for column in table.columns where column.kind == .enumeration { schema.enums[column.type] = column.labels }
        }
        console.out(SwiftTypes.source(schema))
    }
}
