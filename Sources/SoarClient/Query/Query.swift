import Foundation
import SoarCore

/// A typed PostgREST request, built by chaining and run by ``execute()`` or ``value(as:)``.
///
/// ```swift
/// let todos: [Todo] = try await client.from("todos").select().eq("user_id", id).order("sort_order").value()
/// try await client.from("todos").upsert(todo, onConflict: "id").execute()
/// ```
/// Writes answer nothing unless ``select(_:)`` follows them (`Prefer: return=representation`).
public struct Query: Sendable {
    let table: String
    let backend: Backend
    let auth: AuthClient
    private var method = "GET"
    private var parameters: [URLQueryItem] = []
    private var headers: [String: String] = [:]
    private var prefer: [String] = []
    private var body: Result<Data, AppError>?

    init(table: String, backend: Backend, auth: AuthClient) {
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
    public func filter(_ column: String, _ op: String, _ value: String) -> Query {
        var query = self
        query.parameters.append(URLQueryItem(name: column, value: "\(op).\(value)"))
        return query
    }

    public func eq(_ column: String, _ value: some Sendable & CustomStringConvertible) -> Query { filter(column, "eq", Self.text(value)) }
    public func neq(_ column: String, _ value: some Sendable & CustomStringConvertible) -> Query { filter(column, "neq", Self.text(value)) }
    public func gt(_ column: String, _ value: some Sendable & CustomStringConvertible) -> Query { filter(column, "gt", Self.text(value)) }
    public func gte(_ column: String, _ value: some Sendable & CustomStringConvertible) -> Query { filter(column, "gte", Self.text(value)) }
    public func lt(_ column: String, _ value: some Sendable & CustomStringConvertible) -> Query { filter(column, "lt", Self.text(value)) }
    public func lte(_ column: String, _ value: some Sendable & CustomStringConvertible) -> Query { filter(column, "lte", Self.text(value)) }
    public func like(_ column: String, _ pattern: String) -> Query { filter(column, "like", pattern) }
    public func ilike(_ column: String, _ pattern: String) -> Query { filter(column, "ilike", pattern) }

    /// `is.null`, `is.true` or `is.false`.
    public func `is`(_ column: String, _ value: Bool?) -> Query { filter(column, "is", value.map { "\($0)" } ?? "null") }

    /// Matches any of the values (`in.("a","b")`).
    public func `in`(_ column: String, _ values: [some Sendable & CustomStringConvertible]) -> Query {
        let list = values.map { value in
            "\"" + Self.text(value).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return filter(column, "in", "(" + list.joined(separator: ",") + ")")
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
    /// - Returns: the answer's body (empty for a write without ``select(_:)``).
    /// - Throws: ``AppError`` for a refused request or no answer.
    @discardableResult
    public func execute() async throws(AppError) -> Data {
        try await backend.send(try request(), as: auth)
    }

    /// Runs the request with this JWT instead of the signed-in user's (a session that is ending).
    @discardableResult
    func execute(bearer: String) async throws(AppError) -> Data {
        try await backend.send(try request(), bearer: bearer)
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
        return Backend.Request(method: method, path: "rest/v1/" + Backend.segment(table), query: parameters, headers: headers, body: data)
    }

    /// True for an insert, upsert, update or delete.
    var isWrite: Bool { method != "GET" }

    /// Runs the request and decodes the answer: an array of rows, or one row after ``single()``.
    public func value<T: Decodable>(as type: T.Type = T.self) async throws(AppError) -> T {
        let data = try await execute()
        do {
            return try JSONCoding.decode(type, from: data)
        } catch {
            throw AppError(.unknown, AppError.Messages.server, original: error)
        }
    }

    /// Values as PostgREST compares them: UUIDs in lowercase (as Postgres prints them), dates in ISO 8601.
    static func text(_ value: some Sendable & CustomStringConvertible) -> String {
        switch value {
        case let uuid as UUID: uuid.uuidString.lowercased()
        case let date as Date: Timestamp.format(date)
        default: value.description
        }
    }
}
