import Foundation
import SoarCore

/// A string constant read as the type Postgres gives it: that of the column it is compared with
/// (`starts > '2026-01-01'`) or of its cast (`'2026-01-01 10:00+02'::timestamptz`), written as
/// SQLite stores that type, so that the comparison of the two texts answers as Postgres's of the
/// two values. Enums compare by their labels' order.
extension ExpressionTranslator {
    /// The table whose columns unqualified names mean (a policy's, a `CHECK`'s), and their types.
    struct Scope {
        var table: String
        var types: [String: String]

        init(_ relation: Relation) {
            table = relation.name
            types = Dictionary(relation.columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Both sides of a comparison, a constant typed by a column on the other side; an enum's
    /// ordering compares its labels' ranks.
    func comparison(_ op: String, _ left: Node, _ right: Node) throws(SQLError) -> (String, String) {
        let leftType = knownType(left)
        let rightType = knownType(right)
        var leftText = try typed(left, as: rightType)
        var rightText = try typed(right, as: leftType)
        if ["<", ">", "<=", ">="].contains(op), let type = leftType ?? rightType, let labels = schema.enums[type] {
            leftText = try rank(left, leftText, labels)
            rightText = try rank(right, rightText, labels)
        }
        return ("(" + leftText + ")", "(" + rightText + ")")
    }

    /// `node` translated, a string constant written as a column of `type` stores it.
    func typed(_ node: Node, as type: String?) throws(SQLError) -> String {
        guard let type, let text = stringConstant(node) else { return try expression(node) }
        if let stored = try storedConstant(text, as: type, node) { return stored }
        return try expression(node)
    }

    /// A string constant as a column of `type` stores it; nil to leave it as written, where it is
    /// no form Soar reads (Postgres reads more: 'now', 'infinity', zone names). Only an enum's
    /// label is refused, as Postgres refuses it: the type's labels are all known.
    func storedConstant(_ text: String, as type: String, _ node: Node) throws(SQLError) -> String? {
        let trimmed = text.trimmingSpaces
        switch type {
        case "timestamptz", "timestamp":
            return Timestamp.parse(trimmed).map { literal(Timestamp.postgres($0)) }
        case "date":
            return Timestamp.parse(trimmed).map { literal(String(Timestamp.postgres($0).prefix(10))) }
        case "bool":
            return TypeMapping.boolean(trimmed).map { $0 ? "1" : "0" }
        case "uuid":
            // Braces and dashes anywhere, as Postgres takes them; written as uuids are stored.
            var digits = Array(trimmed.lowercased().filter { $0 != "-" && $0 != "{" && $0 != "}" })
            guard digits.count == 32 else { return nil }
            for place in [20, 16, 12, 8] { digits.insert("-", at: place) }
            return RandomUUID.parse(String(digits)).map { literal(RandomUUID.text($0)) }
        case "int2", "int4", "int8": return Int64(trimmed).map(String.init)
        case "numeric", "float4", "float8":
            guard trimmed.allSatisfy({ "0123456789+-.eE".contains($0) }), Double(trimmed)?.isFinite == true else { return nil }
            return trimmed
        default:
            if let labels = schema.enums[type], !labels.contains(text) {
                throw SQLError("invalid input value for enum \(type): \"\(text)\"", at: node.location ?? 0)
            }
            return nil
        }
    }

    /// `date ± days` and `date - date`, as Postgres counts them (a date is text on SQLite, which
    /// would subtract its year); nil when neither side is a date.
    func dateArithmetic(_ op: String, _ left: Node, _ right: Node) throws(SQLError) -> String? {
        let (leftType, rightType) = (knownType(left), knownType(right))
        switch (leftType, rightType) {
        case ("date", "date") where op == "-":
            return "CAST(julianday(\(try expression(left))) - julianday(\(try expression(right))) AS INTEGER)"
        case ("date", let other) where other != "date":
            let days = "(" + (try expression(right)) + ")"
            return "date(\(try expression(left)), printf('%+d days', \(op == "-" ? "-" : "")\(days)))"
        case (let other, "date") where op == "+" && other != "date":
            return "date(\(try expression(right)), printf('%+d days', (\(try expression(left)))))"
        default:
            return nil
        }
    }

    /// The type an expression is known to have: a column of the scope or an argument, a cast,
    /// `current_date` and `now()`, a time plus or minus an interval.
    func knownType(_ node: Node) -> String? {
        switch node.kind {
        case "ColumnRef": return columnType(node)
        case "TypeCast": return node.record("typeName", as: "TypeName").map { TypeMapping.postgresName($0.names("names")) }
        case "SQLValueFunction":
            switch node.string("op") {
            case "SVFOP_CURRENT_DATE": return "date"
            case "SVFOP_CURRENT_TIMESTAMP": return "timestamptz"
            default: return nil
            }
        case "FuncCall": return node.names("funcname").last == "now" ? "timestamptz" : nil
        case "A_Expr":
            let op = node.names("name").last ?? ""
            guard op == "+" || op == "-", let left = node.node("lexpr"), let right = node.node("rexpr") else { return nil }
            let (leftType, rightType) = (knownType(left), knownType(right))
            if rightType == "interval" { return leftType }
            if leftType == "interval" && op == "+" { return rightType }
            return nil
        default: return nil
        }
    }

    /// The Postgres type of a column of the scope's table that `node` names, if it is one.
    func columnType(_ node: Node) -> String? {
        guard node.kind == "ColumnRef" else { return nil }
        let fields = node.nodes("fields").compactMap(\.stringValue)
        if fields.count == 1, !shadowed.contains(fields[0]), let index = arguments.firstIndex(of: fields[0]), index < argumentTypes.count {
            return argumentTypes[index]
        }
        guard let scope else { return nil }
        switch fields.count {
        case 1 where !arguments.contains(fields[0]) || shadowed.contains(fields[0]): return scope.types[fields[0]]
        case 2 where fields[0] == scope.table || fields[0].uppercased() == "NEW": return scope.types[fields[1]]
        default: return nil
        }
    }

    private func stringConstant(_ node: Node) -> String? {
        guard node.kind == "A_Const", let value = node.record("sval", as: "String") else { return nil }
        return value.string("sval")
    }

    /// An enum's value as its label's place in the type's list.
    func rank(_ node: Node, _ text: String, _ labels: [String]) throws(SQLError) -> String {
        if let label = stringConstant(node) {
            guard let index = labels.firstIndex(of: label) else { throw SQLError("invalid input value for enum: \"\(label)\"", at: node.location ?? 0) }
            return String(index)
        }
        return TypeMapping.enumRank(text, labels: labels)
    }
}
