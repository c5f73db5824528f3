import Foundation
import SoarCore

/// Reads PostgREST query parameters (`select`, filters, `or`, `order`, `limit`…) into a ``RowQuery``.
///
/// Every column named must be declared; every value is converted to its column's type here.
public struct QueryParser {
    public let table: Table

    public init(table: Table) { self.table = table }

    /// - Throws: ``QueryError`` for syntax PostgREST refuses (PGRST100) and ``StoreError`` for an
    ///   unknown column (42703) or a value of the wrong type (22P02).
    public func parse(_ parameters: [(name: String, value: String)]) throws(QueryError) -> RowQuery {
        var query = RowQuery()
        var conditions: [RowQuery.Condition] = []
        for (name, value) in parameters {
            switch name {
            case "select": query.outputs = try outputs(value)
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

    private func outputs(_ text: String) throws(QueryError) -> [RowQuery.Output] {
        var outputs: [RowQuery.Output] = []
        for item in try split(text) {
            let part = item.trimmingSpaces
            if part.contains("(") || part.contains("->") || part.contains("::") {
                throw .syntax("failed to parse select parameter (\(text))", details: "embedded resources, JSON paths and casts are not supported: \(part)")
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
        return outputs
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
public enum QueryError: Error, Sendable {
    /// PGRST100: the syntax is wrong.
    case syntax(String, details: String? = nil)
    /// A declared-schema failure: unknown column (42703) or a value of the wrong type (22P02).
    case store(StoreError)
}
