/// SQL text for Postgres from declarations and the query model: identifiers from the table,
/// values as `$n` parameters, and no ownership filter: the table's policies are the filter.
struct PostgresSQL {
    let table: Table
    var parameters: [String?] = []

    init(_ table: Table) { self.table = table }

    static func quote(_ identifier: String) -> String { "\"" + identifier + "\"" }

    var tableName: String { "public." + Self.quote(table.name) }
    var allColumns: String { table.columns.map { Self.quote($0.name) }.joined(separator: ", ") }

    mutating func bind(_ value: SQLValue) -> String {
        parameters.append(value.postgresText)
        return "$\(parameters.count)"
    }

    mutating func whereClause(_ condition: RowQuery.Condition?) -> String {
        condition.map { " WHERE " + render($0) } ?? ""
    }

    mutating func render(_ condition: RowQuery.Condition) -> String {
        switch condition {
        case .all(let members): return "(" + members.map { render($0) }.joined(separator: " AND ") + ")"
        case .any(let members): return "(" + members.map { render($0) }.joined(separator: " OR ") + ")"
        case .not(let member): return "NOT (" + render(member) + ")"
        case .related(let relation, let join, let condition):
            // The related table's policies apply to the subquery too: Postgres's own RLS.
            let on = join.map { "soar_related.\(Self.quote($0.related)) = \(tableName).\(Self.quote($0.own))" }
            let inner = condition.map { [render($0)] } ?? []
            return "EXISTS (SELECT 1 FROM public.\(Self.quote(relation)) AS soar_related WHERE " + (on + inner).joined(separator: " AND ") + ")"
        case .compare(let column, let op, let operand):
            let name = Self.quote(column)
            switch (op, operand) {
            case (.is, .null): return "\(name) IS NULL"
            case (.is, .unknown): return "\(name) IS UNKNOWN"
            case (.is, .isTrue): return "\(name) IS TRUE"
            case (.is, .isFalse): return "\(name) IS FALSE"
            case (.in, .list(let values)):
                return values.isEmpty ? "false" : "\(name) IN (" + values.map { bind($0) }.joined(separator: ", ") + ")"
            case (.like, .value(let value)): return "\(name)::text LIKE \(bind(value))"
            case (.ilike, .value(let value)): return "\(name)::text ILIKE \(bind(value))"
            case (_, .value(let value)):
                let symbol = [RowQuery.Operator.eq: "=", .neq: "<>", .gt: ">", .gte: ">=", .lt: "<", .lte: "<="][op] ?? "="
                return "\(name) \(symbol) \(bind(value))"
            default: return "false"
            }
        }
    }

    func orderClause(_ order: [RowQuery.Order]) -> String {
        guard !order.isEmpty else { return "" }
        return " ORDER BY " + order.map {
            "\(Self.quote($0.column)) \($0.descending ? "DESC" : "ASC") NULLS \($0.nullsFirst ? "FIRST" : "LAST")"
        }.joined(separator: ", ")
    }

    /// A returned row in the declared column order, as the store protocol hands rows up.
    func row(_ texts: [String?]) -> StoredRow {
        zip(table.columns, texts).map { $0.stored(postgres: $1) }
    }

    /// A row of only `columns`, widened to every declared column (NULL where not read).
    func row(_ texts: [String?], columns: [String]) -> StoredRow {
        guard columns.count != table.columns.count else { return row(texts) }
        let read = Dictionary(zip(columns, texts), uniquingKeysWith: { first, _ in first })
        return table.columns.map { column in read[column.name].map { column.stored(postgres: $0) } ?? .null }
    }
}
