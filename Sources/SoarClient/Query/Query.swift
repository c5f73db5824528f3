import Foundation
import SoarCore

/// A typed PostgREST request, built by chaining and run by ``execute()``, in supabase-swift's
/// shapes.
///
/// ```swift
/// let todos: [Todo] = try await client.from("todos").select().eq("user_id", value: id).order("sort_order").execute().value
/// try await client.from("todos").upsert(todo, onConflict: "id").execute()
/// ```
/// Writes answer nothing unless ``select(_:)`` follows them (`Prefer: return=representation`).
public struct Query: Sendable {
    /// The table (`todos`), or `rpc/` and the function's name.
    let table: String
    let backend: Backend
    let auth: SoarAuthClient
    private var method = "GET"
    private var parameters: [URLQueryItem] = []
    private var headers: [String: String] = [:]
    private var prefer: [String] = []
    private var body: Result<Data, AppError>?

    init(table: String, backend: Backend, auth: SoarAuthClient) {
        self.table = table
        self.backend = backend
        self.auth = auth
    }

    // MARK: operations

    /// Reads `columns` (PostgREST's select syntax); after a write, asks for the written rows back.
    public func select(_ columns: String = "*") -> Query {
        var query = self
        query.parameters.append(URLQueryItem(name: "select", value: columns))
        if method != "GET" { query.prefer.append("return=representation") }
        return query
    }

    /// Inserts one row or an array of rows.
    public func insert(_ rows: some Encodable & Sendable) -> Query {
        writing("POST", rows)
    }

    /// Inserts, or merges into the row with the same `onConflict` columns (or ignores it).
    public func upsert(_ rows: some Encodable & Sendable, onConflict: String? = nil, ignoreDuplicates: Bool = false) -> Query {
        var query = writing("POST", rows)
        query.prefer.append(ignoreDuplicates ? "resolution=ignore-duplicates" : "resolution=merge-duplicates")
        if let onConflict { query.parameters.append(URLQueryItem(name: "on_conflict", value: onConflict)) }
        return query
    }

    /// Changes the rows the filters match to the given columns.
    public func update(_ values: some Encodable & Sendable) -> Query {
        writing("PATCH", values)
    }

    /// Deletes the rows the filters match.
    public func delete() -> Query {
        var query = self
        query.method = "DELETE"
        return query
    }

    /// A function call's arguments: POSTed, and the answer asked for.
    func posting(_ arguments: some Encodable) -> Query {
        var query = writing("POST", arguments)
        query.prefer.append("return=representation")
        return query
    }

    private func writing(_ method: String, _ value: some Encodable) -> Query {
        var query = self
        query.method = method
        do {
            query.body = .success(try JSONCoding.encode(value))
        } catch {
            query.body = .failure(AppError(.validation, "The row could not be encoded.", original: error))
        }
        return query
    }

    // MARK: filters and modifiers

    /// Adds `column=operator.value`, PostgREST's filter syntax (`eq`, `neq`, `gt`, `like`, ...).
    public func filter(_ column: String, operator op: String, value: String) -> Query {
        var query = self
        query.parameters.append(URLQueryItem(name: column, value: "\(op).\(value)"))
        return query
    }

    /// Sends a header with the request; `Authorization` acts as another session (one that is
    /// ending, for a device-token wipe).
    public func setHeader(name: String, value: String) -> Query {
        var query = self
        query.headers[name] = value
        return query
    }

    public func eq(_ column: String, value: some Sendable & CustomStringConvertible) -> Query { filter(column, operator: "eq", value: Self.text(value)) }
    public func neq(_ column: String, value: some Sendable & CustomStringConvertible) -> Query { filter(column, operator: "neq", value: Self.text(value)) }
    public func gt(_ column: String, value: some Sendable & CustomStringConvertible) -> Query { filter(column, operator: "gt", value: Self.text(value)) }
    public func gte(_ column: String, value: some Sendable & CustomStringConvertible) -> Query { filter(column, operator: "gte", value: Self.text(value)) }
    public func lt(_ column: String, value: some Sendable & CustomStringConvertible) -> Query { filter(column, operator: "lt", value: Self.text(value)) }
    public func lte(_ column: String, value: some Sendable & CustomStringConvertible) -> Query { filter(column, operator: "lte", value: Self.text(value)) }
    public func like(_ column: String, pattern: String) -> Query { filter(column, operator: "like", value: pattern) }
    public func ilike(_ column: String, pattern: String) -> Query { filter(column, operator: "ilike", value: pattern) }

    /// `is.null`, `is.true` or `is.false`.
    public func `is`(_ column: String, value: Bool?) -> Query { filter(column, operator: "is", value: value.map { "\($0)" } ?? "null") }

    /// Matches any of the values (`in.("a","b")`).
    public func `in`(_ column: String, values: [some Sendable & CustomStringConvertible]) -> Query {
        let list = values.map { value in
            "\"" + Self.text(value).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return filter(column, operator: "in", value: "(" + list.joined(separator: ",") + ")")
    }

    /// Orders by a column; later calls order within earlier ones.
    public func order(_ column: String, ascending: Bool = true, nullsFirst: Bool? = nil) -> Query {
        var term = "\(column).\(ascending ? "asc" : "desc")"
        if let nullsFirst { term += nullsFirst ? ".nullsfirst" : ".nullslast" }
        var query = self
        if let index = query.parameters.firstIndex(where: { $0.name == "order" }) {
            query.parameters[index].value! += "," + term
        } else {
            query.parameters.append(URLQueryItem(name: "order", value: term))
        }
        return query
    }

    public func limit(_ count: Int) -> Query {
        var query = self
        query.parameters.append(URLQueryItem(name: "limit", value: String(count)))
        return query
    }

    /// Rows `from` through `to`, both counted from 0 and included.
    public func range(from: Int, to: Int) -> Query {
        var query = self
        query.parameters.append(URLQueryItem(name: "offset", value: String(from)))
        query.parameters.append(URLQueryItem(name: "limit", value: String(max(0, to - from + 1))))
        return query
    }

    /// Expects exactly one row and answers it as an object, not an array (none is `notFound`).
    public func single() -> Query {
        var query = self
        query.headers["Accept"] = "application/vnd.pgrst.object+json"
        return query
    }

    // MARK: running

    /// Runs the request.
    ///
    /// - Returns: the answer's body as `data` (empty for a write without ``select(_:)``).
    /// - Throws: ``AppError`` for a refused request or no answer.
    @discardableResult
    public func execute() async throws(AppError) -> QueryResponse<Void> {
        QueryResponse(data: try await backend.send(try request(), as: auth), value: ())
    }

    /// Runs the request and decodes the answer as `value`: an array of rows, or one row after
    /// ``single()``.
    public func execute<T: Decodable>() async throws(AppError) -> QueryResponse<T> {
        let data = try await backend.send(try request(), as: auth)
        do {
            return QueryResponse(data: data, value: try JSONCoding.decode(T.self, from: data))
        } catch {
            throw AppError(.unknown, AppError.Messages.server, original: error)
        }
    }

    /// The request this query sends.
    func request() throws(AppError) -> Backend.Request {
        var headers = headers
        let preferences = prefer.contains("return=representation") || method == "GET" ? prefer : prefer + ["return=minimal"]
        if !preferences.isEmpty { headers["Prefer"] = preferences.joined(separator: ",") }
        let data: Data?
        switch body {
        case .failure(let error): throw error
        case .success(let encoded): data = encoded
        case nil: data = nil
        }
        return Backend.Request(method: method, path: Self.path(table), query: parameters, headers: headers, body: data)
    }

    /// `rest/v1/todos`, `rest/v1/rpc/search`: a function's name is one segment, a table's too.
    static func path(_ table: String) -> String {
        if table.hasPrefix("rpc/") { return "rest/v1/rpc/" + Backend.segment(String(table.dropFirst(4))) }
        return "rest/v1/" + Backend.segment(table)
    }

    /// True for an insert, upsert, update or delete.
    var isWrite: Bool { method != "GET" }


    /// Values as PostgREST compares them: UUIDs in lowercase (as Postgres prints them), dates in ISO 8601.
    static func text(_ value: some Sendable & CustomStringConvertible) -> String {
        switch value {
        case let uuid as UUID: uuid.uuidString.lowercased()
        case let date as Date: Timestamp.format(date)
        default: value.description
        }
    }
}

/// What ``Query/execute()`` answers: the body, and the decoded value.
public struct QueryResponse<T> {
    public let data: Data
    public let value: T
}

extension QueryResponse: Sendable where T: Sendable {}
