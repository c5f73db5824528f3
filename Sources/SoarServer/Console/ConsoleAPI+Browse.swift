import Foundation
import SoarCore
import SoarStorage
import SoarStore

/// The console's read-mostly pages: a user's detail (sessions, devices, inbox) and the actions on
/// them (revoke one session or all, delete), the app's tables and views with their schema, the development
/// mailbox, and Storage's buckets and objects.
extension ConsoleAPI {
    /// `GET /users/<id>`, `POST /users/<id>/signout`, `DELETE /users/<id>/sessions/<session>`,
    /// `DELETE /users/<id>`.
    func user(_ method: String, _ rest: String) throws(ConsoleError) -> JSONValue {
        let parts = rest.split(separator: "/").map(String.init)
        guard let id = parts.first, RandomUUID.parse(id) != nil else { throw ConsoleError(400, "invalid_request", "A user is named by their id") }
        guard let user = try stored({ () throws(StoreError) in try store.user(id: id.lowercased()) }) else {
            throw ConsoleError(404, "not_found", "No user has the id \(id)")
        }
        switch (method, parts.dropFirst().first) {
        case ("POST", "signout"?):
            try stored { () throws(StoreError) in try store.deleteSessions(userID: user.id, only: nil, except: nil) }
            return ["id": .string(user.id), "signed_out": true]
        case ("DELETE", "sessions"?):
            // One session ends (its tokens refused at once); the user's others go on.
            guard parts.count == 3 else { throw ConsoleError(400, "invalid_request", "Name the session to revoke: /users/<id>/sessions/<session>") }
            let session = parts[2].lowercased()
            guard try stored({ () throws(StoreError) in try store.sessions(userID: user.id) }).contains(where: { $0.id.lowercased() == session }) else {
                throw ConsoleError(404, "not_found", "\(user.email ?? user.id) has no session \(session)")
            }
            try stored { () throws(StoreError) in try store.deleteSessions(userID: user.id, only: session, except: nil) }
            return ["id": .string(user.id), "session": .string(session), "revoked": true]
        case ("DELETE", nil):
            _ = try stored { () throws(StoreError) in try store.deleteUser(id: user.id) }
            return ["id": .string(user.id), "deleted": true]
        case ("GET", nil):
            let devices = try deviceRows(limit: 500).filter { $0["user_id"]?.stringValue == user.id }
            return [
                "id": .string(user.id), "email": user.email.map(JSONValue.string) ?? .null, "created_at": .string(user.createdAt),
                "last_sign_in_at": user.lastSignInAt.map(JSONValue.string) ?? .null,
                "sessions": .array(try stored { () throws(StoreError) in try store.sessions(userID: user.id) }.map { session in
                    ["id": .string(session.id), "created_at": .string(session.createdAt), "refreshed_at": .string(session.updatedAt), "aal": .string(session.aal)]
                }),
                "devices": .array(devices.map(JSONValue.object)), "inbox": .array(try rows(of: "notifications", where: ("user_id", user.id), order: "created_at", limit: 50)),
            ]
        default:
            throw ConsoleError(404, "not_found", "No console API at \(method) /users/\(rest)")
        }
    }

    /// `GET /tables`: the data API's tables and views with their columns.
    func tables() -> JSONValue {
        .array(store.tables.values.sorted { $0.name < $1.name }.map { table in
            [
                "name": .string(table.name), "kind": .string(table.isView ? "view" : "table"),
                "primary_key": .array(table.primaryKey.map(JSONValue.string)),
                "columns": .array(table.columns.map { ["name": .string($0.name), "type": .string($0.type), "nullable": .bool($0.nullable)] }),
            ]
        })
    }

    /// `GET /tables/<name>?offset=N`: 50 rows as the service role reads them.
    func table(_ name: String, offset: Int) throws(ConsoleError) -> JSONValue {
        guard store.tables[name] != nil else { throw ConsoleError(404, "not_found", "No table or view \(name)") }
        return .array(try rows(of: name, where: nil, order: nil, limit: 50, offset: offset))
    }

    /// `GET /mailbox`: the development mailbox's newest 100 mails (without SMTP).
    func mailbox() throws(ConsoleError) -> JSONValue {
        .array(try stored { () throws(StoreError) in try store.mails(limit: 100) }.map { mail in
            ["to": .string(mail.to), "subject": .string(mail.subject), "text": .string(mail.text), "created_at": .string(mail.createdAt)]
        })
    }

    /// `GET /storage`: buckets; `GET /storage/<bucket>?prefix=`: up to 200 of its objects.
    func storage(_ bucket: String?, prefix: String) throws(ConsoleError) -> JSONValue {
        guard let bucket, !bucket.isEmpty else {
            // `allowed_mime_types` is kept as Postgres's array literal: shown as the list it is.
            return .array(try builtInRows("storage.buckets", where: nil, order: "id", limit: 500).map { row in
                guard case .object(var bucket) = row, let types = bucket["allowed_mime_types"]?.stringValue else { return row }
                bucket["allowed_mime_types"] = .array(PostgresArray.parse(types).map(JSONValue.string))
                return .object(bucket)
            })
        }
        guard !(try builtInRows("storage.buckets", where: ("id", bucket), order: nil, limit: 1)).isEmpty else {
            throw ConsoleError(404, "not_found", "No bucket has the id \(bucket)")
        }
        let objects = try builtInRows("storage.objects", where: ("bucket_id", bucket), order: "name", limit: 200)
        return .array(objects.filter { ($0.objectValue?["name"]?.stringValue ?? "").hasPrefix(prefix) })
    }

    /// Rows of an app table as JSON objects, read as the service role.
    func rows(of name: String, where match: (String, String)?, order: String?, limit: Int, offset: Int = 0) throws(ConsoleError) -> [JSONValue] {
        guard let table = store.tables[name] else { return [] }
        return try read(table, where: match, order: order, limit: limit, offset: offset)
    }

    private func builtInRows(_ name: String, where match: (String, String)?, order: String?, limit: Int) throws(ConsoleError) -> [JSONValue] {
        try read(store.builtIn(name), where: match, order: order, limit: limit, offset: 0)
    }

    private func read(_ table: Table, where match: (String, String)?, order: String?, limit: Int, offset: Int) throws(ConsoleError) -> [JSONValue] {
        var query = RowQuery()
        if let (column, value) = match, table.column(column) != nil { query.condition = .compare(column: column, op: .eq, operand: .value(.text(value))) }
        if let order, table.column(order) != nil { query.order = [RowQuery.Order(column: order, descending: order.hasSuffix("_at"))] }
        query.limit = limit
        query.offset = max(0, offset)
        let rows = try stored { () throws(StoreError) in try store.select(table, query, as: .service, counting: false).rows }
        return rows.map { row in
            .object(Dictionary(uniqueKeysWithValues: zip(table.columns, row).map { column, value in (column.name, column.json(value)) }))
        }
    }
}
