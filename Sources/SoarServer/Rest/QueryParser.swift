import Foundation
import SoarCore
import SoarSchema
import SoarStore

/// Reads PostgREST query parameters (`select`, filters, `or`, `order`, `limit`…) into a ``RowQuery``.
///
/// Every column named must be declared; every value is converted to its column's type here.
struct QueryParser {
    let table: Table
    /// The relations embedded resources may name (`select=*,todos(*)`).
    let tables: [String: Table]

    init(table: Table, tables: [String: Table] = [:]) {
        self.table = table
        self.tables = tables
    }

    /// - Throws: ``QueryError`` for syntax PostgREST refuses (PGRST100) and ``StoreError`` for an
    ///   unknown column (42703) or a value of the wrong type (22P02).
    func parse(_ parameters: [(name: String, value: String)]) throws(QueryError) -> RowQuery {
        try parse(parameters, into: nil)
    }

    /// `embedded`: an embedded resource's query as its select list made it, its parameters to add.
    private func parse(_ parameters: [(name: String, value: String)], into embedded: RowQuery?) throws(QueryError) -> RowQuery {
        var query = embedded ?? RowQuery()
        var conditions: [RowQuery.Condition] = []
        // The select list first: filters on embedded resources (`todos.done=eq.true`) name them.
        if embedded == nil, let select = parameters.last(where: { $0.name == "select" }) {
            (query.outputs, query.embeddings) = try outputs(select.value)
        }
        var nested: [Int: [(name: String, value: String)]] = [:]
        for (name, value) in parameters {
            if name != "select", let dot = name.firstIndex(of: "."), !name.hasPrefix("not.") {
                let path = String(name[..<dot])
                guard let index = query.outputs.first(where: { $0.embedding != nil && $0.key == path })?.embedding else {
                    throw .rest(400, "PGRST108", "'\(path)' is not an embedded resource in this request",
                        hint: "Verify that '\(path)' is included in the 'select' query parameter.")
                }
                nested[index, default: []].append((String(name[name.index(after: dot)...]), value))
                continue
            }
            switch name {
            case "select": continue
            case "order": query.order = try order(value)
            case "limit": query.limit = try count(value, "limit")
            case "offset": query.offset = try count(value, "offset")
            case "on_conflict": query.conflictColumns = try columnList(value)
            case "columns": query.insertColumns = try columnList(value)
            case "or", "and", "not.or", "not.and":
                let negated = name.hasPrefix("not.")
                let group = try logic(name.hasSuffix("or") ? "or" : "and", value, depth: 1)
                conditions.append(negated ? .not(group) : group)
            default:
                conditions.append(try filter(column: name, value))
            }
        }
        for index in query.embeddings.indices {
            let embedding = query.embeddings[index]
            let child = tables[embedding.relation]!
            // The embedded resource's own parameters (a select list inside it is its own).
            let parsed = try QueryParser(table: child, tables: tables).parse(nested[index] ?? [], into: embedding.query)
            query.embeddings[index].query = parsed
            // `!inner`: only rows with a related row the caller may read (and that meets its filters).
            if embedding.inner {
                conditions.append(.related(relation: embedding.relation, join: parsed.join, condition: parsed.condition))
            }
        }
        if !conditions.isEmpty { query.condition = conditions.count == 1 ? conditions[0] : .all(conditions) }
        if let condition = query.condition {
            let (count, depth) = condition.shape
            guard count <= Self.maxConditions, depth <= Self.maxDepth else {
                throw .syntax(
                    "failed to parse logic tree", details: "at most \(Self.maxConditions) conditions nested \(Self.maxDepth) deep; this has \(count), \(depth) deep")
            }
        }
        return query
    }

    /// Bounds on a query's filters, well inside what the stores' SQL parsers take.
    static let maxConditions = 500
    static let maxDepth = 16

    // MARK: select and order

    private func outputs(_ text: String) throws(QueryError) -> ([RowQuery.Output], [RowQuery.Embedding]) {
        var outputs: [RowQuery.Output] = []
        var embeddings: [RowQuery.Embedding] = []
        for item in try split(text) {
            let part = item.trimmingSpaces
            if let open = part.firstIndex(of: "("), part.hasSuffix(")") {
                let embedding = try self.embedding(String(part[..<open]), String(part[part.index(after: open)..<part.index(before: part.endIndex)]), text)
                outputs.append(RowQuery.Output(column: "", key: embedding.key, embedding: embeddings.count))
                embeddings.append(embedding.embedding)
                continue
            }
            if Self.isCastOrPath(part) {
                throw .syntax("failed to parse select parameter (\(text))", details: "JSON paths and casts are not supported: \(part)")
            }
            if part == "*" {
                outputs += table.columns.map { RowQuery.Output(column: $0.name, key: $0.name) }
                continue
            }
            let pieces = part.split(separator: ":", maxSplits: 1).map { $0.trimmingSpaces }
            let column = pieces.last ?? ""
            guard !column.isEmpty, pieces.allSatisfy({ !$0.isEmpty }) else { throw .syntax("failed to parse select parameter (\(text))") }
            try require(column)
            outputs.append(RowQuery.Output(column: column, key: pieces.first ?? column))
        }
        return (outputs, embeddings)
    }

    /// Whether a select item holds `(`, `->` or `::`: looked for in its bytes, since Foundation's
    /// `contains` of a string was 2% of a read's time.
    private static func isCastOrPath(_ part: some StringProtocol) -> Bool {
        var previous: UInt8 = 0
        for byte in part.utf8 {
            if byte == UInt8(ascii: "(") || (previous == UInt8(ascii: "-") && byte == UInt8(ascii: ">")) || (previous == UInt8(ascii: ":") && byte == UInt8(ascii: ":")) { return true }
            previous = byte
        }
        return false
    }

    /// `alias:relation!hint!inner` and its select list, as an embedded resource.
    private func embedding(_ head: String, _ inner: String, _ text: String) throws(QueryError) -> (key: String, embedding: RowQuery.Embedding) {
        let pieces = head.split(separator: ":", maxSplits: 1).map { $0.trimmingSpaces }
        let target = pieces.last ?? ""
        var names = target.split(separator: "!").map { $0.trimmingSpaces }
        let inner_ = names.contains("inner")
        names.removeAll { $0 == "inner" || $0 == "left" }
        guard let relation = names.first, !relation.isEmpty, names.count <= 2 else { throw .syntax("failed to parse select parameter (\(text))") }
        let hint = names.count == 2 ? names[1] : nil
        guard let child = tables[relation] else { throw Self.noRelationship(table.name, relation) }
        var query = RowQuery()
        let parser = QueryParser(table: child, tables: tables)
        (query.outputs, query.embeddings) = try parser.outputs(inner.trimmingSpaces.isEmpty ? "*" : inner)
        (query.join, query.toOne) = try relationship(to: child, hint: hint)
        return (pieces.count == 2 ? pieces[0] : relation, RowQuery.Embedding(relation: relation, hint: hint, inner: inner_, query: query))
    }

    /// How `child` relates to this table through a foreign key, either way round.
    ///
    /// - Throws: PGRST200 for no relationship, PGRST201 (300) for several without a hint.
    private func relationship(to child: Table, hint: String?) throws(QueryError) -> ([RowQuery.Join], Bool) {
        func matches(_ key: ForeignKey) -> Bool { hint == nil || key.name == hint || key.columns.contains(hint!) }
        var found: [([RowQuery.Join], Bool, String)] = []
        for key in table.relation.foreignKeys where key.referencedRelation == child.name && matches(key) {
            found.append((zip(key.referencedColumns, key.columns).map { RowQuery.Join(related: $0, own: $1) }, true, key.name))
        }
        for key in child.relation.foreignKeys where key.referencedRelation == table.name && matches(key) {
            found.append((zip(key.columns, key.referencedColumns).map { RowQuery.Join(related: $0, own: $1) }, false, key.name))
        }
        guard !found.isEmpty else { throw Self.noRelationship(table.name, child.name) }
        guard found.count == 1 else {
            throw .rest(300, "PGRST201", "Could not embed because more than one relationship was found for '\(table.name)' and '\(child.name)'",
                hint: "Try changing '\(child.name)' to one of the following: \(found.map { "'\(child.name)!\($0.2)'" }.joined(separator: ", ")).")
        }
        return (found[0].0, found[0].1)
    }

    static func noRelationship(_ parent: String, _ child: String) -> QueryError {
        .rest(400, "PGRST200", "Could not find a relationship between '\(parent)' and '\(child)' in the schema cache",
            hint: "Perhaps you meant a table that has a foreign key to or from '\(parent)'.")
    }

    private func order(_ text: String) throws(QueryError) -> [RowQuery.Order] {
        var terms: [RowQuery.Order] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ".").map(String.init)
            guard let column = parts.first, parts.count <= 3 else { throw .syntax("failed to parse order (\(text))") }
            try require(column)
            var descending = false
            var nullsFirst: Bool?
            for modifier in parts.dropFirst() {
                switch modifier {
                case "asc": descending = false
                case "desc": descending = true
                case "nullsfirst": nullsFirst = true
                case "nullslast": nullsFirst = false
                default: throw .syntax("failed to parse order (\(text))", details: "unexpected \"\(modifier)\"")
                }
            }
            // Postgres' defaults: ascending puts nulls last, descending puts them first.
            terms.append(RowQuery.Order(column: column, descending: descending, nullsFirst: nullsFirst ?? descending))
        }
        return terms
    }

    private func count(_ text: String, _ name: String) throws(QueryError) -> Int {
        guard let value = Int(text), value >= 0 else { throw .syntax("failed to parse \(name) parameter (\(text))") }
        return value
    }

    private func columnList(_ text: String) throws(QueryError) -> [String] {
        // postgrest-py quotes each name: columns="user_id","title".
        let columns = text.split(separator: ",").map { unquote($0.trimmingSpaces) }
        guard !columns.isEmpty else { throw .syntax("empty column list") }
        for column in columns { try require(column) }
        return columns
    }

    // MARK: filters

    /// `column=[not.]op.value`.
    private func filter(column: String, _ text: String) throws(QueryError) -> RowQuery.Condition {
        try require(column)
        var rest = Substring(text)
        var negated = false
        if rest.hasPrefix("not.") {
            negated = true
            rest = rest.dropFirst(4)
        }
        guard let dot = rest.firstIndex(of: "."), let op = RowQuery.Operator(rawValue: String(rest[..<dot])) else {
            throw .syntax("failed to parse filter (\(text))", details: "expected an operator (eq, neq, gt, gte, lt, lte, like, ilike, in, is) and a value")
        }
        let value = String(rest[rest.index(after: dot)...])
        let operand = try self.operand(op, value, column: column)
        if op == .is && value.lowercased() == "not_null" { negated.toggle() }
        let condition = RowQuery.Condition.compare(column: column, op: op, operand: operand)
        return negated ? .not(condition) : condition
    }

    private func operand(_ op: RowQuery.Operator, _ text: String, column name: String) throws(QueryError) -> RowQuery.Operand {
        let column = table.column(name)!
        switch op {
        case .is:
            let word = text.lowercased()
            switch word {
            case "null": return .null
            case "not_null": return .null  // negated by `filter`
            case "true", "false", "unknown":
                // Postgres's rule: SQLite would take any value's truthiness ("123" IS TRUE).
                guard column.kind == .boolean else {
                    throw .store(StoreError(
                        code: "42804", message: "argument of IS \(word.uppercased()) must be type boolean, not type \(column.typeName)"))
                }
                return word == "true" ? .isTrue : word == "false" ? .isFalse : .unknown
            default: throw .syntax("failed to parse filter (is.\(text))", details: "is takes null, true, false or unknown")
            }
        case .in:
            guard text.hasPrefix("("), text.hasSuffix(")") else { throw .syntax("failed to parse filter (in.\(text))", details: "in takes a list: in.(a,b)") }
            var values: [SQLValue] = []
            for item in try split(String(text.dropFirst().dropLast())) {
                values.append(try convert(column, unquote(item)))
            }
            return .list(values)
        case .like, .ilike:
            return .value(.text(text.replacingOccurrences(of: "*", with: "%")))
        default:
            return .value(try convert(column, unquote(text)))
        }
    }

    /// `or=(a.eq.1,and(b.gt.2,c.is.null),not.d.eq.3)`.
    private func logic(_ kind: String, _ text: String, depth: Int) throws(QueryError) -> RowQuery.Condition {
        // Refused before going deeper: a URL of nested groups must not cost a parse of each level.
        guard depth <= Self.maxDepth else { throw .syntax("failed to parse logic tree", details: "groups nest at most \(Self.maxDepth) deep") }
        guard text.hasPrefix("("), text.hasSuffix(")") else { throw .syntax("failed to parse logic tree (\(text))") }
        var members: [RowQuery.Condition] = []
        for raw in try split(String(text.dropFirst().dropLast())) {
            var item = raw.trimmingSpaces
            var negated = false
            if item.hasPrefix("not.") && (item.dropFirst(4).hasPrefix("or(") || item.dropFirst(4).hasPrefix("and(")) {
                negated = true
                item = String(item.dropFirst(4))
            }
            let member: RowQuery.Condition
            if item.hasPrefix("or(") || item.hasPrefix("and(") {
                let open = item.firstIndex(of: "(")!
                member = try logic(String(item[..<open]), String(item[open...]), depth: depth + 1)
            } else {
                guard let dot = item.firstIndex(of: ".") else { throw .syntax("failed to parse logic tree (\(text))") }
                member = try filter(column: String(item[..<dot]), String(item[item.index(after: dot)...]))
            }
            members.append(negated ? .not(member) : member)
        }
        guard !members.isEmpty else { throw .syntax("failed to parse logic tree (\(text))") }
        return kind == "or" ? .any(members) : .all(members)
    }

    /// A filter's value as the column stores it (a device token in lowercase, as it is stored).
    private func convert(_ column: Column, _ text: String) throws(QueryError) -> SQLValue {
        do { return try column.storable(text: column.canonical(text)) } catch { throw .store(error) }
    }

    private func require(_ column: String) throws(QueryError) {
        guard table.column(column) != nil else { throw .store(.undefinedColumn(column, table: table.name)) }
    }

    /// Splits on commas outside parentheses and double quotes.
    private func split(_ text: String) throws(QueryError) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            switch character {
            case "\\" where quoted: escaped = true; current.append(character)
            case "\"": quoted.toggle(); current.append(character)
            case "(" where !quoted: depth += 1; current.append(character)
            case ")" where !quoted:
                depth -= 1
                guard depth >= 0 else { throw .syntax("unbalanced parentheses in (\(text))") }
                current.append(character)
            case "," where !quoted && depth == 0:
                items.append(current)
                current = ""
            default: current.append(character)
            }
        }
        guard depth == 0, !quoted else { throw .syntax("unbalanced parentheses or quotes in (\(text))") }
        items.append(current)
        return items
    }

    /// `"a,b"` -> `a,b`, with `\"` and `\\` unescaped.
    private func unquote(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var out = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped || character != "\\" {
                out.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return out
    }
}

/// Why a query string cannot be read.
enum QueryError: Error, Sendable {
    /// PGRST100: the syntax is wrong.
    case syntax(String, details: String? = nil)
    /// Another of PostgREST's own errors (embedding: PGRST108, PGRST200, PGRST201).
    case rest(Int, String, String, hint: String? = nil)
    /// A declared-schema failure: unknown column (42703) or a value of the wrong type (22P02).
    case store(StoreError)
}
