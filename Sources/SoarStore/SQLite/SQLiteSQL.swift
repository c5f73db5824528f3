import SoarSchema

/// SQL text for SQLite from the schema and the query model: identifiers from the table, values as `?`.
struct SQLiteSQL {
    let table: Table
    /// The caller's row-level security on it.
    let rules: Table.Rules
    /// Another relation's rows as the caller may read them (for `!inner` embeddings).
    let related: (String) -> String
    var parameters: [SQLValue] = []

    init(_ table: Table, _ rules: Table.Rules, related: @escaping (String) -> String = { Self.quote($0) }) {
        self.table = table
        self.rules = rules
        self.related = related
    }

    static func quote(_ identifier: String) -> String { "\"" + identifier + "\"" }

    var tableName: String { Self.quote(table.name) }
    /// What a read reads: the table, or a `security_invoker` view's query under the caller's policies.
    var source: String { rules.source }
    var allColumns: String { table.columns.map { Self.quote($0.name) }.joined(separator: ", ") }

    /// Numbered (`?3`), so that parameters already in the text (a function's `?1`…) keep theirs.
    mutating func bind(_ value: SQLValue) -> String {
        parameters.append(value)
        return "?\(parameters.count)"
    }

    /// The WHERE clause for a condition and the table's policies for the caller (SQLite has no
    /// RLS: the policies' `USING` expressions, translated from the migrations, are added here).
    /// Updates and deletes also need the row to be visible, as in Postgres.
    mutating func whereClause(_ condition: RowQuery.Condition?, _ command: Policy.Command) -> String {
        var parts = [rules.filters[command]]
        if command != .select { parts.append(rules.filters[.select]) }
        var rendered = parts.compactMap { $0 }.map { "(\($0))" }
        if let condition { rendered.append(render(condition)) }
        return rendered.isEmpty ? "" : " WHERE " + rendered.joined(separator: " AND ")
    }

    /// A `RETURNING` column that is 1 when the written row meets the policies' `WITH CHECK` (and,
    /// when `readable`, the SELECT policies' `USING`: a row that comes back must be one the caller may read).
    func checkColumn(_ commands: [Policy.Command], readable: Bool = false) -> String? {
        let checks = commands.compactMap { rules.checks[$0] } + (readable ? [rules.filters[.select]].compactMap { $0 } : [])
        return checks.isEmpty ? nil : "coalesce((" + checks.map { "(\($0))" }.joined(separator: " AND ") + "), 0)"
    }

    mutating func render(_ condition: RowQuery.Condition) -> String {
        switch condition {
        case .all(let members): return "(" + members.map { render($0) }.joined(separator: " AND ") + ")"
        case .any(let members): return "(" + members.map { render($0) }.joined(separator: " OR ") + ")"
        case .not(let member): return "NOT (" + render(member) + ")"
        case .related(let relation, let join, let condition):
            let on = join.map { "\"soar_related\".\(Self.quote($0.related)) = \(Self.quote(table.name)).\(Self.quote($0.own))" }
            let inner = condition.map { [render($0)] } ?? []
            return "EXISTS (SELECT 1 FROM \(related(relation)) AS \"soar_related\" WHERE " + (on + inner).joined(separator: " AND ") + ")"
        case .compare(let column, let op, let operand):
            let name = Self.quote(column)
            switch (op, operand) {
            case (.is, .null), (.is, .unknown): return "\(name) IS NULL"
            case (.is, .isTrue): return "\(name) IS TRUE"
            case (.is, .isFalse): return "\(name) IS FALSE"
            case (.in, .list(let values)):
                return values.isEmpty ? "0" : "\(name) IN (" + values.map { bind($0) }.joined(separator: ", ") + ")"
            case (.like, .value(let value)): return "\(name) LIKE \(bind(value)) ESCAPE '\\'"
            case (.ilike, .value(let value)): return "lower(\(name)) LIKE lower(\(bind(value))) ESCAPE '\\'"
            case (_, .value(let value)):
                let symbol = [RowQuery.Operator.eq: "=", .neq: "<>", .gt: ">", .gte: ">=", .lt: "<", .lte: "<="][op] ?? "="
                return "\(name) \(symbol) \(bind(value))"
            default: return "0"
            }
        }
    }

    /// Nulls go where asked only in columns that may hold them: a NULLS clause SQLite's own order
    /// does not match keeps it from reading rows in an index's order (it sorts them instead).
    func orderClause(_ order: [RowQuery.Order]) -> String {
        guard !order.isEmpty else { return "" }
        return " ORDER BY " + order.map {
            let nulls = table.column($0.column)?.nullable == false ? "" : " NULLS \($0.nullsFirst ? "FIRST" : "LAST")"
            return "\(Self.quote($0.column)) \($0.descending ? "DESC" : "ASC")\(nulls)"
        }.joined(separator: ", ")
    }
}
