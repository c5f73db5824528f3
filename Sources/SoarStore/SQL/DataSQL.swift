import SoarSchema

/// The SQL engine a statement is for: the few places where SQLite and Postgres spell a thing differently.
enum SQLDialect: Sendable {
    case sqlite, postgres
}

/// One statement and its values, for either store.
struct SQLStatement: Sendable {
    let text: String
    let parameters: [SQLValue]
    /// Its rows end with a column that is 1 when the row met the policies' `WITH CHECK` (SQLite).
    var checked = false
}

/// The data API's SQL, written once for both stores: identifiers from the schema, values as `$n`
/// parameters (Postgres's own; ``SQLiteStatement`` binds them by number too).
///
/// On Postgres the tables' policies are Postgres's row-level security and `rules` is nil. On
/// SQLite, which has none, `rules` are the caller's policies translated from the migrations, and
/// the statements apply them: `USING` in the WHERE clause, `WITH CHECK` as a returned column.
struct DataSQL {
    let table: Table
    let dialect: SQLDialect
    let rules: Table.Rules?
    /// What a read reads: the table, a `security_invoker` view's query, a function's rows.
    let source: String
    /// Another relation's rows as the caller may read them (for `!inner` embeddings).
    let related: (String) -> String
    private(set) var parameters: [SQLValue]

    /// - Parameter parameters: values already numbered in `source` (a function's arguments).
    init(
        _ table: Table, _ dialect: SQLDialect, rules: Table.Rules? = nil, source: String? = nil, parameters: [SQLValue] = [],
        related: ((String) -> String)? = nil
    ) {
        self.table = table
        self.dialect = dialect
        self.rules = rules
        self.parameters = parameters
        self.source = source ?? rules?.source ?? Self.relation(table.name, dialect)
        self.related = related ?? { Self.relation($0, dialect) }
    }

    static func quote(_ identifier: String) -> String { "\"" + identifier + "\"" }

    /// A relation's name in SQL: on Postgres in its schema (`public`, or a built-in's own:
    /// `storage.objects`); SQLite has one name for each (`"storage.objects"`).
    static func relation(_ name: String, _ dialect: SQLDialect) -> String {
        guard dialect == .postgres else { return quote(name) }
        guard Schema.isBuiltIn(name), let dot = name.firstIndex(of: ".") else { return "public." + quote(name) }
        return quote(String(name[..<dot])) + "." + quote(String(name[name.index(after: dot)...]))
    }

    var tableName: String { Self.relation(table.name, dialect) }
    /// How a subquery names this relation's row: by its name, or on Postgres a built-in one (in
    /// its own schema, as `storage.objects`) by schema and name.
    var outerReference: String { dialect == .postgres && Schema.isBuiltIn(table.name) ? tableName : Self.quote(table.name) }
    var allColumns: String { Self.list(table.columns.map(\.name)) }
    static func list(_ names: [String]) -> String { names.map(quote).joined(separator: ", ") }

    mutating func bind(_ value: SQLValue) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    // MARK: Statements

    /// The rows a query reads (only `columns`, so column-level grants answer as PostgREST's do),
    /// and their count without limit and offset.
    static func select(_ sql: DataSQL, _ query: RowQuery, columns: [String]) -> (rows: SQLStatement, count: SQLStatement) {
        var sql = sql
        let filter = sql.whereClause(query.condition, .select)
        let count = SQLStatement(text: "SELECT count(*) FROM \(sql.source)\(filter)", parameters: sql.parameters)
        let list = columns.isEmpty ? "1" : list(columns)
        let text = "SELECT \(list) FROM \(sql.source)\(filter)\(sql.orderClause(query.order))\(sql.limitClause(query))"
        return (SQLStatement(text: text, parameters: sql.parameters), count)
    }

    /// One row's insert: columns left out get the table's defaults from the database itself
    /// (`auth.uid()`, `now()`…). `time` is what an upsert's `updated_at`-like columns are set to.
    static func insert(
        _ sql: DataSQL, _ values: RowValues, onConflict: ConflictResolution?, time: String, returning: Bool
    ) -> SQLStatement {
        var sql = sql
        let names = given(sql.table, values)
        var text = "INSERT INTO \(sql.tableName) "
        text += names.isEmpty ? "DEFAULT VALUES" : "(\(list(names))) VALUES (" + names.map { sql.bind(values[$0]!) }.joined(separator: ", ") + ")"
        switch onConflict {
        case nil: break
        case .ignore(let columns):
            text += " ON CONFLICT (\(list(columns))) DO NOTHING"
        case .merge(let columns):
            let touched = Self.touched(sql.table, values)
            var assignments = names.filter { !columns.contains($0) }.map { "\(quote($0)) = excluded.\(quote($0))" }
            assignments += touched.map { "\(quote($0)) = \(sql.bind(.text(time)))" }
            // Nothing to change, but the existing row is still "written": touch its key.
            if assignments.isEmpty { assignments = ["\(quote(columns[0])) = excluded.\(quote(columns[0]))"] }
            text += " ON CONFLICT (\(list(columns))) DO UPDATE SET " + assignments.joined(separator: ", ")
            // The UPDATE policies' USING: an existing row the caller may not change is not updated.
            if let rules = sql.rules {
                let using = [rules.filters[.update], rules.filters[.select]].compactMap { $0 }
                if !using.isEmpty { text += " WHERE " + using.map { "(\($0))" }.joined(separator: " AND ") }
            }
        }
        let merging = if case .merge = onConflict { true } else { false }
        return sql.returning(merging ? [.insert, .update] : [.insert], returning: returning, text: text)
    }

    /// What makes two inserts of a table by one role the same SQL text: the columns given, the
    /// conflict handling, and whether the rows are answered.
    static func insertShape(_ table: Table, _ values: RowValues, onConflict: ConflictResolution?, returning: Bool) -> String {
        // Each name with its length: no two lists of names share a shape.
        let names = { (names: [String]) in names.map { "\($0.utf8.count):\($0)" }.joined() }
        let conflict = switch onConflict {
        case nil: "-"
        case .ignore(let columns): "ignore " + names(columns)
        case .merge(let columns): "merge " + names(columns)
        }
        return "\(returning) \(conflict) " + names(given(table, values))
    }

    /// The values ``insert(_:_:onConflict:time:returning:)`` binds, in its order (the columns
    /// given, then an upsert's touched columns): for its text kept by ``insertShape(_:_:onConflict:returning:)``.
    static func insertParameters(_ table: Table, _ values: RowValues, onConflict: ConflictResolution?, time: String) -> [SQLValue] {
        var parameters = given(table, values).map { values[$0]! }
        if case .merge = onConflict { parameters += touched(table, values).map { _ in .text(time) } }
        return parameters
    }

    /// The columns a row gives a value for, in the table's order.
    private static func given(_ table: Table, _ values: RowValues) -> [String] {
        table.columns.map(\.name).filter { values[$0] != nil }
    }

    /// The columns an upsert sets to its time because the row leaves them out (`updated_at`).
    private static func touched(_ table: Table, _ values: RowValues) -> [String] {
        table.columns.filter { $0.touchedOnUpdate && values[$0.name] == nil }.map(\.name)
    }

    static func update(_ sql: DataSQL, set values: RowValues, where condition: RowQuery.Condition?, returning: Bool) -> SQLStatement? {
        var sql = sql
        let names = given(sql.table, values)
        guard !names.isEmpty else { return nil }
        var text = "UPDATE \(sql.tableName) SET " + names.map { "\(quote($0)) = \(sql.bind(values[$0]!))" }.joined(separator: ", ")
        text += sql.whereClause(condition, .update)
        return sql.returning([.update], returning: returning, text: text)
    }

    static func delete(_ sql: DataSQL, where condition: RowQuery.Condition?) -> SQLStatement {
        var sql = sql
        let text = "DELETE FROM \(sql.tableName)\(sql.whereClause(condition, .delete)) RETURNING \(sql.allColumns)"
        return SQLStatement(text: text, parameters: sql.parameters)
    }

    /// The written rows back: on Postgres only when asked (then Postgres asks nothing of the
    /// SELECT policies); on SQLite always, with the policies' check as a last column, which covers
    /// the SELECT policies too when the rows are to be returned (Postgres's RETURNING rule).
    private func returning(_ commands: [Policy.Command], returning: Bool, text: String) -> SQLStatement {
        guard let rules else {
            return SQLStatement(text: text + (returning ? " RETURNING \(allColumns)" : ""), parameters: parameters)
        }
        let checks = commands.compactMap { rules.checks[$0] } + (returning ? [rules.filters[.select]].compactMap { $0 } : [])
        let check = checks.isEmpty ? nil : "coalesce((" + checks.map { "(\($0))" }.joined(separator: " AND ") + "), 0)"
        // Rows not to be answered come back as their check alone (or 1): only their count counts.
        let columns = returning ? [allColumns] + [check].compactMap { $0 } : [check ?? "1"]
        return SQLStatement(text: text + " RETURNING " + columns.joined(separator: ", "), parameters: parameters, checked: check != nil)
    }

    // MARK: Clauses

    /// The WHERE clause for a condition, with the caller's `USING` policies where the store
    /// applies them (updates and deletes also need the row to be visible, as in Postgres).
    mutating func whereClause(_ condition: RowQuery.Condition?, _ command: Policy.Command) -> String {
        var parts: [String] = []
        if let rules {
            parts = [rules.filters[command], command == .select ? nil : rules.filters[.select]].compactMap { $0 }.map { "(\($0))" }
        }
        if let condition { parts.append(render(condition)) }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    mutating func render(_ condition: RowQuery.Condition) -> String {
        switch condition {
        case .all(let members): return "(" + members.map { render($0) }.joined(separator: " AND ") + ")"
        case .any(let members): return "(" + members.map { render($0) }.joined(separator: " OR ") + ")"
        case .not(let member): return "NOT (" + render(member) + ")"
        case .related(let relation, let join, let condition):
            let on = join.map { "\"soar_related\".\(Self.quote($0.related)) = \(outerReference).\(Self.quote($0.own))" }
            let inner = condition.map { [render($0)] } ?? []
            return "EXISTS (SELECT 1 FROM \(related(relation)) AS \"soar_related\" WHERE " + (on + inner).joined(separator: " AND ") + ")"
        case .compare(let column, let op, let operand):
            let name = Self.quote(column)
            // Patterns match a column's text (Postgres casts; SQLite compares text as it is).
            let text = dialect == .postgres ? name + "::text" : name
            switch (op, operand) {
            case (.is, .null): return "\(name) IS NULL"
            // SQLite has no IS UNKNOWN: on a boolean it is IS NULL.
            case (.is, .unknown): return dialect == .postgres ? "\(name) IS UNKNOWN" : "\(name) IS NULL"
            case (.is, .isTrue): return "\(name) IS TRUE"
            case (.is, .isFalse): return "\(name) IS FALSE"
            case (.in, .list(let values)):
                return values.isEmpty ? "false" : "\(name) IN (" + values.map { bind($0) }.joined(separator: ", ") + ")"
            case (.like, .value(let value)): return "\(text) LIKE \(bind(value)) ESCAPE '\\'"
            case (.ilike, .value(let value)):
                return dialect == .postgres ? "\(text) ILIKE \(bind(value)) ESCAPE '\\'" : "lower(\(text)) LIKE lower(\(bind(value))) ESCAPE '\\'"
            case (_, .value(let value)):
                let symbol = [RowQuery.Operator.eq: "=", .neq: "<>", .gt: ">", .gte: ">=", .lt: "<", .lte: "<="][op] ?? "="
                switch op {
                case .gt, .gte, .lt, .lte:
                    if let rank = enumRank(column), case .text(let label) = value, let place = table.column(column)?.labels.firstIndex(of: label) {
                        return "\(rank) \(symbol) \(place)"
                    }
                default: break
                }
                return "\(name) \(symbol) \(bind(value))"
            default: return "false"
            }
        }
    }

    /// Nulls go where asked only in columns that may hold them: a NULLS clause the engine's own
    /// order does not match keeps SQLite from reading rows in an index's order.
    func orderClause(_ order: [RowQuery.Order]) -> String {
        guard !order.isEmpty else { return "" }
        return " ORDER BY " + order.map {
            let nulls = table.column($0.column)?.nullable == false ? "" : " NULLS \($0.nullsFirst ? "FIRST" : "LAST")"
            return "\(enumRank($0.column) ?? Self.quote($0.column)) \($0.descending ? "DESC" : "ASC")\(nulls)"
        }.joined(separator: ", ")
    }

    /// On SQLite, an enum column as its label's place in the type (Postgres orders and compares
    /// enums so; SQLite keeps the label's text); nil for any other column, and on Postgres.
    func enumRank(_ column: String) -> String? {
        guard dialect == .sqlite, let labels = table.column(column)?.labels, !labels.isEmpty else { return nil }
        return TypeMapping.enumRank(Self.quote(column), labels: labels)
    }

    /// SQLite takes OFFSET only after a LIMIT (-1: none); Postgres takes either alone.
    mutating func limitClause(_ query: RowQuery) -> String {
        var text = ""
        if let limit = query.limit {
            text += " LIMIT \(bind(.integer(Int64(limit))))"
        } else if query.offset != nil && dialect == .sqlite {
            text += " LIMIT -1"
        }
        if let offset = query.offset { text += " OFFSET \(bind(.integer(Int64(offset))))" }
        return text
    }
}
