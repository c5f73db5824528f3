import Foundation
import SoarCore
import SoarHTTP
import SoarStore

/// PostgREST's subset at `/rest/v1/{table}`: read with filters, insert and upsert, update, delete,
/// on the app's schema as its migrations left it, with grants and policies applied for the caller.
struct RestService: Sendable {
    let store: any DataStore
    /// Reads' queries as ``QueryParser`` left them, by their table's identity and request string
    /// (see ``cacheKey(_:)``): a table made again by a schema change has another identity, so a
    /// query parsed against the old one is never taken for the new.
    private let parsed = BoundedCache<RowQuery>()

    init(store: any DataStore) { self.store = store }

    /// Whether a write's answer shows its rows (`return=representation`, `headers-only`'s
    /// Location, `.single()`): only then must they be rows the caller may read, as in PostgREST.
    static func wantsRows(_ prefer: Prefer, _ answer: Representation) -> Bool {
        prefer.returning == .representation || prefer.returning == .headersOnly || answer == .object
    }

    /// A query string PostgREST would refuse, as its answer.
    static func failure(_ error: QueryError, _ role: Access.Role) -> ServerError {
        switch error {
        case .syntax(let message, let details): .rest(400, "PGRST100", message, details: details)
        case .rest(let status, let code, let message, let hint): .rest(status, code, message, hint: hint)
        case .store(let error): .store(error, role: role)
        }
    }

    func handle(_ exchange: inout Exchange) throws(ServerError) -> HTTPResponse {
        let name = exchange.parameters["table"] ?? ""
        let tables = store.tables
        guard let table = tables[name] else {
            throw .rest(404, "PGRST205", "Could not find the table 'public.\(name)' in the schema cache")
        }
        for header in ["accept-profile", "content-profile"] {
            if let schema = exchange.header(header), schema != "public" {
                throw .rest(406, "PGRST106", "The schema must be one of the following: public")
            }
        }
        // `.single()` (one object, a write of any other number of rows rolled back), CSV or JSON.
        let answer = try Representation.answer(accepting: exchange.header("accept"))
        // A read's query is kept by its table (as this schema made it) and its request string.
        let reading = exchange.request.method == "GET" || exchange.request.method == "HEAD"
        let key = reading ? Self.cacheKey(exchange.request.query).map { "\(table.identity) \($0)" } : nil
        var query: RowQuery
        if let key, let kept = parsed[key] {
            query = kept
        } else {
            do throws(QueryError) {
                query = try QueryParser(table: table, tables: tables).parse(exchange.request.query.filter { $0.name != "apikey" })
            } catch {
                throw Self.failure(error, exchange.access.role)
            }
            if let key { parsed.keep(query, for: key) }
        }
        query.cacheKey = key
        let prefer = Prefer(exchange.header("prefer"))
        switch exchange.request.method {
        case "GET", "HEAD": return try read(table, query, prefer, answer, exchange)
        case "POST": return try insert(table, query, prefer, answer, &exchange)
        case "PATCH": return try update(table, query, prefer, answer, exchange)
        default: return try delete(table, query, prefer, answer, exchange)
        }
    }

    // MARK: reading

    private func read(_ table: Table, _ query: RowQuery, _ prefer: Prefer, _ answer: Representation, _ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        var query = query
        // As PostgREST (after RFC 9110), the Range header counts for GET only.
        if exchange.request.method == "GET", let range = exchange.header("range"), let (start, end) = try Self.range(range) {
            query.offset = max(query.offset ?? 0, start)
            if let end {
                let (count, overflow) = (end - start).addingReportingOverflow(1)
                query.limit = min(query.limit ?? Int.max, overflow ? Int.max : count)
            }
        }
        let start = query.offset ?? 0
        func checkRange(_ total: Int?) throws(ServerError) {
            if let total, start > total { throw Self.rangeNotSatisfiable("An offset of \(start) was requested, but there are only \(total) rows.") }
        }
        var response: HTTPResponse
        let read: (rows: Int, total: Int?)
        // A JSON array straight from the store where it can write one (SQLite), else from rows.
        var json = JSONText(capacity: 4096)
        let written: (rows: Int, total: Int?)?
        do { written = answer == .json ? try store.selectJSON(table, query, as: exchange.access, counting: prefer.countExact, into: &json) : nil } catch {
            throw .store(error, role: exchange.access.role)
        }
        if let written {
            try checkRange(written.total)
            read = written
            response = HTTPResponse(status: 200, headers: [("content-type", "application/json; charset=utf-8")], body: Data(json.bytes))
        } else {
            let result: (rows: [StoredRow], total: Int?)
            do { result = try store.select(table, query, as: exchange.access, counting: prefer.countExact) } catch {
                throw .store(error, role: exchange.access.role)
            }
            try checkRange(result.total)
            read = (result.rows.count, result.total)
            response = try body(table, query, result.rows, answer, exchange, status: 200)
        }
        let total = read.total.map(String.init) ?? "*"
        let range = read.rows == 0 ? "*/\(total)" : "\(start)-\(start + read.rows - 1)/\(total)"
        response.headers.append(("content-range", range))
        if let count = read.total, read.rows < count { response.status = 206 }
        if exchange.request.method == "HEAD" { response.body = Data() }
        return response
    }

    /// The request's query string as parsed (`apikey` left out), each name and value with its
    /// length so that no two queries share a key: see ``RowQuery/cacheKey``. Nil for a long one
    /// (over 512 bytes): it is parsed afresh rather than kept.
    static func cacheKey(_ pairs: [(name: String, value: String)]) -> String? {
        var key = ""
        for pair in pairs where pair.name != "apikey" {
            key += "\(pair.name.utf8.count):\(pair.name)\(pair.value.utf8.count):\(pair.value)"
            if key.utf8.count > 512 { return nil }
        }
        return key
    }

    // MARK: writing

    /// Answers later (see ``Later``): the store commits the rows on its writer thread, in a
    /// transaction shared with the other writes waiting then.
    private func insert(_ table: Table, _ query: RowQuery, _ prefer: Prefer, _ answer: Representation, _ exchange: inout Exchange) throws(ServerError) -> HTTPResponse {
        let objects: [[String: JSONValue]]
        switch try Self.body(exchange) {
        case .object(let object): objects = [object]
        case .array(let items):
            objects = try items.map { (item: JSONValue) throws(ServerError) -> [String: JSONValue] in
                guard let object = item.objectValue else { throw .rest(400, "PGRST102", "All object keys must match", details: "an array item is not an object") }
                return object
            }
        default: throw .rest(400, "PGRST102", "Empty or invalid json", details: "the body must be an object or an array of objects")
        }
        var rows: [RowValues] = []
        let keys = query.insertColumns.map(Set.init) ?? Set(objects.first?.keys ?? [:].keys)
        for (index, object) in objects.enumerated() {
            // The first object's keys are `keys` when no columns were named.
            if query.insertColumns == nil, index > 0, Set(object.keys) != keys { throw .rest(400, "PGRST102", "All object keys must match") }
            var row = RowValues()
            for key in keys {
                guard let column = table.column(key) else {
                    throw .rest(400, "PGRST204", "Could not find the '\(key)' column of '\(table.name)' in the schema cache")
                }
                if let value = object[key] {
                    row[key] = try storable(column, value, exchange)
                } else if !prefer.missingDefault {
                    row[key] = .null
                }
            }
            rows.append(row)
        }
        var conflict: ConflictResolution?
        if let resolution = prefer.resolution {
            let columns = query.conflictColumns ?? table.primaryKey
            guard Set(columns) == Set(table.primaryKey) else {
                throw .rest(400, "42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification")
            }
            conflict = resolution == .mergeDuplicates ? .merge(on: columns) : .ignore(on: columns)
        }
        let asked = exchange
        exchange.later = Later { [self, rows, conflict] done in
            store.insert(table, rows, onConflict: conflict, as: asked.access, single: answer == .object, returning: Self.wantsRows(prefer, answer)) { result in
                done {
                    switch result {
                    case .success(let written):
                        Result { () throws(ServerError) in try writeResponse(table, query, prefer, answer, asked, written, status: 201) }
                    case .failure(let error): .failure(.store(error, role: asked.access.role))
                    }
                }
            }
        }
        return HTTPResponse(status: 202)  // not sent: `later` answers
    }

    private func update(_ table: Table, _ query: RowQuery, _ prefer: Prefer, _ answer: Representation, _ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        guard case .object(let object) = try Self.body(exchange) else {
            throw .rest(400, "PGRST102", "Empty or invalid json", details: "PATCH takes one object")
        }
        var values = RowValues()
        for (key, value) in object {
            guard let column = table.column(key) else {
                throw .rest(400, "PGRST204", "Could not find the '\(key)' column of '\(table.name)' in the schema cache")
            }
            values[key] = try storable(column, value, exchange)
        }
        guard !values.isEmpty else { return HTTPResponse(status: 204) }
        try Self.requireFilter(query, "UPDATE")
        let written: [StoredRow]
        do {
            written = try store.update(
                table, set: values, where: query.condition, as: exchange.access, single: answer == .object, returning: Self.wantsRows(prefer, answer))
        } catch {
            throw .store(error, role: exchange.access.role)
        }
        return try writeResponse(table, query, prefer, answer, exchange, written, status: 200)
    }

    private func delete(_ table: Table, _ query: RowQuery, _ prefer: Prefer, _ answer: Representation, _ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try Self.requireFilter(query, "DELETE")
        let removed: [StoredRow]
        do { removed = try store.delete(table, where: query.condition, as: exchange.access, single: answer == .object) } catch {
            throw .store(error, role: exchange.access.role)
        }
        return try writeResponse(table, query, prefer, answer, exchange, removed, status: 200)
    }

    /// The request body as JSON: JSON itself, CSV rows as objects of their header's columns, or
    /// a form's fields as one object.
    private static func body(_ exchange: Exchange) throws(ServerError) -> JSONValue {
        let kind = try Representation.body(exchange.header("content-type"))
        if kind == .form {
            var components = URLComponents()
            components.percentEncodedQuery = String(decoding: exchange.request.body, as: UTF8.self).replacingOccurrences(of: "+", with: "%20")
            let fields = (components.queryItems ?? []).map { ($0.name, JSONValue.string($0.value ?? "")) }
            return .object(Dictionary(fields, uniquingKeysWith: { _, last in last }))
        }
        guard kind == .csv else {
            return try exchange.json { .rest(400, "PGRST102", "Empty or invalid json", details: $0) }
        }
        let parsed: (columns: [String], rows: [[String?]])
        do { parsed = try CSV.rows(String(decoding: exchange.request.body, as: UTF8.self)) } catch {
            throw .rest(400, "PGRST102", "Empty or invalid CSV", details: error.message)
        }
        return .array(parsed.rows.map { row in
            .object(Dictionary(zip(parsed.columns, row.map { $0.map(JSONValue.string) ?? .null }), uniquingKeysWith: { first, _ in first }))
        })
    }

    /// An update or delete without a filter is refused, as Supabase's API refuses it (its
    /// `safeupdate` extension, on for every API request, service role included): one forgotten
    /// `.eq(...)` would otherwise change every row the caller may reach.
    private static func requireFilter(_ query: RowQuery, _ statement: String) throws(ServerError) {
        guard query.condition == nil else { return }
        throw .rest(400, "21000", "\(statement) requires a WHERE clause")
    }

    private func writeResponse(
        _ table: Table, _ query: RowQuery, _ prefer: Prefer, _ answer: Representation, _ exchange: Exchange, _ rows: [StoredRow], status: Int
    ) throws(ServerError) -> HTTPResponse {
        var response: HTTPResponse
        switch prefer.returning ?? .minimal {
        case .representation:
            response = try body(table, query, rows, answer, exchange, status: status)
        case .minimal, .headersOnly:
            response = HTTPResponse(status: status == 201 ? 201 : 204)
            if prefer.returning == .headersOnly, let row = rows.first {
                let key = table.primaryKey.compactMap { name in
                    table.position(of: name).map { "\(name)=eq.\(Self.text(row[$0]))" }
                }.joined(separator: "&")
                response.headers.append(("location", "/\(table.name)?\(key)"))
            }
        }
        if prefer.countExact { response.headers.append(("content-range", rows.isEmpty ? "*/0" : "0-\(rows.count - 1)/\(rows.count)")) }
        if let applied = prefer.applied { response.headers.append(("preference-applied", applied)) }
        return response
    }

    // MARK: shaping

    /// Rows as JSON, keys in the order selected (as PostgREST writes them): an array, or one
    /// object when the client asked for `vnd.pgrst.object+json`.
    private func body(_ table: Table, _ query: RowQuery, _ rows: [StoredRow], _ answer: Representation, _ exchange: Exchange, status: Int) throws(ServerError) -> HTTPResponse {
        let outputs = query.outputs(of: table.columns.map(\.name))
        // Embedded resources are read now, each in one query for every row (under the caller's policies).
        let embedded = try self.embedded(table, query, rows, exchange.access)
        let positions = outputs.map { $0.embedding == nil ? table.position(of: $0.column) : nil }
        // Looked up once, not per cell: a row repeats its columns and keys.
        let columns = positions.map { $0.map { table.columns[$0] } }
        let keys = outputs.map { JSONText.Key($0.key) }
        func value(_ field: Int, _ row: StoredRow, _ index: Int) -> JSONValue {
            guard let position = positions[field], let column = columns[field] else { return embedded[outputs[field].embedding!][index] }
            return column.json(row[position])
        }
        if answer == .csv {
            var text = CSV.line(outputs.map(\.key)) + "\n"
            for (index, row) in rows.enumerated() {
                text += CSV.line(outputs.indices.map { Self.csvText(value($0, row, index)) }) + "\n"
            }
            return HTTPResponse(status: status, headers: [("content-type", "text/csv; charset=utf-8")], body: Data(text.utf8))
        }
        func write(_ row: StoredRow, _ index: Int, to json: inout JSONText) {
            json.beginObject()
            for field in outputs.indices { json.field(keys[field], value(field, row, index)) }
            json.endObject()
        }
        var json = JSONText(capacity: 64 + rows.count * 128)
        let contentType: String
        if answer == .object {
            guard rows.count == 1 else { throw .store(.notOneRow(rows.count), role: exchange.access.role) }
            write(rows[0], 0, to: &json)
            contentType = Representation.objectMediaType + "; charset=utf-8"
        } else {
            json.beginArray()
            for (index, row) in rows.enumerated() { write(row, index, to: &json) }
            json.endArray()
            contentType = "application/json; charset=utf-8"
        }
        return HTTPResponse(status: status, headers: [("content-type", contentType)], body: Data(json.bytes))
    }

    /// Each embedded resource's value for each row: the related row (or null) through a
    /// many-to-one key, the related rows (an array) through a one-to-many one.
    private func embedded(_ table: Table, _ query: RowQuery, _ rows: [StoredRow], _ access: Access) throws(ServerError) -> [[JSONValue]] {
        var values: [[JSONValue]] = []
        for embedding in query.embeddings {
            guard let child = store.tables[embedding.relation] else { throw .rest(400, "PGRST200", "'\(embedding.relation)' is no longer in the schema cache") }
            let join = embedding.query.join
            let own = join.map { table.position(of: $0.own)! }
            let keys = rows.map { row in own.map { row[$0] } }
            let distinct = Array(Set(keys.filter { !$0.contains(.null) }))
            var related: [StoredRow] = []
            // Bounded lists keep each statement under the stores' limits on bound values.
            for start in stride(from: 0, to: distinct.count, by: 1_000) {
                let chunk = distinct[start..<min(start + 1_000, distinct.count)]
                var childQuery = embedding.query
                let match: RowQuery.Condition = join.count == 1
                    ? .compare(column: join[0].related, op: .in, operand: .list(chunk.map { $0[0] }))
                    : .any(chunk.map { key in .all(zip(join, key).map { .compare(column: $0.related, op: .eq, operand: .value($1)) }) })
                childQuery.condition = childQuery.condition.map { .all([match, $0]) } ?? match
                childQuery.limit = nil
                childQuery.offset = nil
                do { related += try store.select(child, childQuery, as: access, counting: false).rows } catch {
                    throw .store(error, role: access.role)
                }
            }
            let nested = try embedded(child, embedding.query, related, access)
            let childOutputs = embedding.query.outputs(of: child.columns.map(\.name))
            let positions = join.map { child.position(of: $0.related)! }
            var byKey: [[SQLValue]: [Int]] = [:]
            for (index, row) in related.enumerated() { byKey[positions.map { row[$0] }, default: []].append(index) }
            values.append(keys.map { key in
                var matched = byKey[key] ?? []
                if let offset = embedding.query.offset { matched = Array(matched.dropFirst(offset)) }
                if let limit = embedding.query.limit { matched = Array(matched.prefix(limit)) }
                let objects = matched.map { index in
                    JSONValue.object(Dictionary(childOutputs.map { output in
                        if let inner = output.embedding { return (output.key, nested[inner][index]) }
                        let position = child.position(of: output.column)!
                        return (output.key, child.columns[position].json(related[index][position]))
                    }, uniquingKeysWith: { first, _ in first }))
                }
                return embedding.query.toOne ? objects.first ?? .null : .array(objects)
            })
        }
        return values
    }

    /// A value as Postgres writes it in text (booleans `t` and `f`); nil for NULL.
    private static func csvText(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .bool(let flag): flag ? "t" : "f"
        case .string(let text): text
        case let other: other.jsonText
        }
    }

    private func storable(_ column: Column, _ value: JSONValue, _ exchange: Exchange) throws(ServerError) -> SQLValue {
        do { return try column.storable(value) } catch { throw .store(error, role: exchange.access.role) }
    }

    /// `Range: 0-9` (items), or `5-` for everything from 5; nil for a header that is no such range
    /// (ignored, as PostgREST ignores it), and PostgREST's 416 for an end before the start.
    static func range(_ header: String) throws(ServerError) -> (Int, Int?)? {
        let value = header.split(separator: "=").last.map(String.init) ?? header
        let parts = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0].trimmingSpaces), start >= 0 else { return nil }
        let endText = parts[1].trimmingSpaces
        if endText.isEmpty { return (start, nil) }
        guard let end = Int(endText) else { return nil }
        guard end >= start else {
            throw rangeNotSatisfiable("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
        }
        return (start, end)
    }

    static func rangeNotSatisfiable(_ details: String) -> ServerError {
        .rest(416, "PGRST103", "Requested range not satisfiable", details: details)
    }

    static func text(_ value: SQLValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): v.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? v
        }
    }
}
