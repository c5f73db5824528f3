import Foundation
import SoarClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension InMemoryBackend {
    /// PostgREST's table API on one table, as one caller (nil: the anon key).
    struct Table {
        let name: String
        let caller: UUID?

        /// The column that says whose a row is, as the starter's policies have it.
        var ownerColumn: String { name == "profiles" ? "id" : "user_id" }

        func answer(_ request: URLRequest, _ query: [(String, String)], _ body: JSONValue?, _ state: inout State) -> (Int, JSONValue) {
            guard let all = state.tables[name] else {
                return error(404, "PGRST205", "Could not find the table 'public.\(name)' in the schema cache")
            }
            let prefer = request.value(forHTTPHeaderField: "Prefer") ?? ""
            let returning = prefer.contains("return=representation")
            let filters = query.filter { !["select", "order", "limit", "offset", "on_conflict", "columns"].contains($0.0) }
            let matches = { (row: [String: JSONValue]) in self.visible(row) && filters.allSatisfy { Self.matches(row[$0.0] ?? .null, $0.1) } }
            switch request.httpMethod ?? "GET" {
            case "GET":
                var rows = all.filter(matches)
                if let order = query.first(where: { $0.0 == "order" })?.1 { rows = Self.sorted(rows, by: order) }
                let offset = query.first { $0.0 == "offset" }.flatMap { Int($0.1) } ?? 0
                rows = Array(rows.dropFirst(offset))
                if let limit = query.first(where: { $0.0 == "limit" }).flatMap({ Int($0.1) }) { rows = Array(rows.prefix(limit)) }
                return respond(rows, request)
            case "POST":
                let incoming = body?.arrayValue?.compactMap(\.objectValue) ?? body?.objectValue.map { [$0] } ?? []
                let conflict = query.first { $0.0 == "on_conflict" }?.1.split(separator: ",").map(String.init)
                var written: [[String: JSONValue]] = []
                for given in incoming {
                    let fields = Self.stored(given)
                    var row = (state.defaults[name] ?? [:]).merging(fields) { $1 }
                    if row[ownerColumn] == nil, let caller { row[ownerColumn] = .string(caller.uuidString.lowercased()) }
                    guard visible(row) else { return error(403, "42501", "new row violates row-level security policy for table \"\(name)\"") }
                    let key = conflict ?? ["id"]
                    if let index = state.tables[name]!.firstIndex(where: { existing in key.allSatisfy { existing[$0] != nil && existing[$0] == row[$0] } }) {
                        if prefer.contains("resolution=ignore-duplicates") { continue }
                        guard prefer.contains("resolution=merge-duplicates"), visible(state.tables[name]![index]) else {
                            return error(409, "23505", "duplicate key value violates unique constraint on \(name) (\(key.joined(separator: ", ")))")
                        }
                        state.tables[name]![index].merge(fields) { $1 }
                        state.tables[name]![index]["updated_at"] = .string(Timestamp.format(Date()))
                        written.append(state.tables[name]![index])
                        continue
                    }
                    let now = JSONValue.string(Timestamp.format(Date()))
                    if row["id"] == nil { row["id"] = .string(UUID().uuidString.lowercased()) }
                    if row["created_at"] == nil { row["created_at"] = now }
                    if row["updated_at"] == nil { row["updated_at"] = now }
                    state.tables[name]!.append(row)
                    written.append(row)
                }
                return returning ? respond(written, request, status: 201) : (201, .null)
            case "PATCH":
                let fields = Self.stored(body?.objectValue ?? [:])
                var written: [[String: JSONValue]] = []
                for index in state.tables[name]!.indices where matches(state.tables[name]![index]) {
                    state.tables[name]![index].merge(fields) { $1 }
                    written.append(state.tables[name]![index])
                }
                return returning ? respond(written, request) : (204, .null)
            case "DELETE":
                let gone = all.filter(matches)
                state.tables[name]!.removeAll(where: matches)
                return returning ? respond(gone, request) : (204, .null)
            default:
                return error(405, "PGRST117", "Unsupported HTTP method: \(request.httpMethod ?? "")")
            }
        }

        /// Values as a uuid column keeps them: UUIDs in lowercase, as Postgres prints them.
        static func stored(_ fields: [String: JSONValue]) -> [String: JSONValue] {
            fields.mapValues { value in
                guard let text = value.stringValue, let uuid = UUID(uuidString: text) else { return value }
                return .string(uuid.uuidString.lowercased())
            }
        }

        private func visible(_ row: [String: JSONValue]) -> Bool {
            guard let owner = row[ownerColumn] else { return true }
            return caller != nil && owner.stringValue.flatMap(UUID.init(uuidString:)) == caller
        }

        /// Rows as JSON: an array, or with `single()` the one row (406 unless exactly one).
        private func respond(_ rows: [[String: JSONValue]], _ request: URLRequest, status: Int = 200) -> (Int, JSONValue) {
            guard request.value(forHTTPHeaderField: "Accept")?.contains("vnd.pgrst.object") == true else { return (status, .array(rows.map(JSONValue.object))) }
            guard rows.count == 1 else {
                return error(406, "PGRST116", "JSON object requested, multiple (or no) rows returned: \(rows.count) rows")
            }
            return (status, .object(rows[0]))
        }

        /// `eq.5`, `in.("a","b")`, `is.null`, `ilike.br%`…
        static func matches(_ value: JSONValue, _ condition: String) -> Bool {
            guard let dot = condition.firstIndex(of: ".") else { return false }
            let op = condition[..<dot]
            let operand = String(condition[condition.index(after: dot)...])
            switch op {
            case "eq": return compare(value, operand) == .orderedSame
            case "neq": return value != .null && compare(value, operand) != .orderedSame
            case "gt": return compare(value, operand) == .orderedDescending
            case "gte": return [.orderedDescending, .orderedSame].contains(compare(value, operand))
            case "lt": return compare(value, operand) == .orderedAscending
            case "lte": return [.orderedAscending, .orderedSame].contains(compare(value, operand))
            case "is":
                switch operand {
                case "null": return value == .null
                case "true": return value == .bool(true)
                case "false": return value == .bool(false)
                default: return false
                }
            case "in":
                let items = operand.trimmingCharacters(in: CharacterSet(charactersIn: "()")).split(separator: ",").map {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).replacingOccurrences(of: "\\\"", with: "\"")
                }
                return items.contains { compare(value, $0) == .orderedSame }
            case "like", "ilike":
                guard let text = value.stringValue else { return false }
                let pattern = "^" + NSRegularExpression.escapedPattern(for: operand).replacingOccurrences(of: "%", with: ".*").replacingOccurrences(of: "_", with: ".") + "$"
                return text.range(of: pattern, options: op == "ilike" ? [.regularExpression, .caseInsensitive] : .regularExpression) != nil
            default: return false
            }
        }

        /// A cell against a filter's text: numbers as numbers, booleans by name, the rest as text
        /// (UUIDs and timestamps compare as PostgREST's lowercase ISO text does).
        static func compare(_ value: JSONValue, _ text: String) -> ComparisonResult? {
            switch value {
            case .null, .array, .object: return nil
            case .bool(let flag): return "\(flag)" == text.lowercased() ? .orderedSame : .orderedAscending
            case .int, .double, .number:
                guard let number = value.doubleValue, let other = Double(text) else { return nil }
                return number == other ? .orderedSame : (number < other ? .orderedAscending : .orderedDescending)
            case .string(let string):
                if let x = UUID(uuidString: string), let y = UUID(uuidString: text) { return x == y ? .orderedSame : (x.uuidString < y.uuidString ? .orderedAscending : .orderedDescending) }
                if let x = Timestamp.parse(string), let y = Timestamp.parse(text) { return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending) }
                return string == text ? .orderedSame : (string < text ? .orderedAscending : .orderedDescending)
            }
        }

        /// `order=sort_order.asc,created_at.desc.nullsfirst`.
        static func sorted(_ rows: [[String: JSONValue]], by order: String) -> [[String: JSONValue]] {
            let keys = order.split(separator: ",").map { term in
                let parts = term.split(separator: ".").map(String.init)
                return (column: parts[0], descending: parts.contains("desc"))
            }
            return rows.sorted { left, right in
                for key in keys {
                    let (a, b) = (left[key.column] ?? .null, right[key.column] ?? .null)
                    if a == b { continue }
                    let ascending = Self.less(a, b)
                    return key.descending ? !ascending : ascending
                }
                return false
            }
        }

        private static func less(_ a: JSONValue, _ b: JSONValue) -> Bool {
            if let x = a.doubleValue, let y = b.doubleValue { return x < y }
            if let x = a.stringValue, let y = b.stringValue { return x < y }
            return a == .null
        }
    }
}
