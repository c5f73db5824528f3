import SoarCore
import SoarStore

/// Registration outside the data API (seed 001's `POST /api/creator/device_tokens`): the same
/// row, the same rules and the same idempotent upsert on `(user_id, token)` as the data API's.
struct DeviceRegistration: Sendable {
    let store: any DataStore
    static let fields = ["token", "platform", "environment", "bundle_id"]

    /// Upserts the caller's device from `{token, platform, environment, bundle_id}` and returns the row.
    func register(_ body: JSONValue, userID: String) throws(PushError) -> [String: JSONValue] {
        guard let object = body.objectValue else { throw .invalid("the body must be a JSON object like {\"token\": \"<hex>\", \"platform\": \"ios\"}") }
        let table = try mapped { () throws(StoreError) in try store.table("device_tokens") }
        guard object["token"]?.stringValue != nil else { throw .invalid("token is required: the device token as hex") }
        if let unknown = object.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw .invalid("unknown field \"\(unknown)\"; the fields are \(Self.fields.joined(separator: ", "))")
        }
        var values: RowValues = ["user_id": .text(userID)]
        for (name, value) in object {
            guard case .string = value else {
                if case .null = value, name != "token" { continue }
                throw .invalid("\(name) must be a string")
            }
            guard let column = table.column(name) else { throw .invalid("device_tokens has no column \(name)") }
            values[name] = try mapped { () throws(StoreError) in try column.storable(value) }
        }
        if case .text(let environment)? = values["environment"] {
            guard let named = PushEnvironment(named: environment) else {
                throw .invalid("environment must be one of sandbox, production, not \"\(environment)\"")
            }
            values["environment"] = .text(named.rawValue)
        }
        if case .text(let token)? = values["token"], let problem = Self.problem(token) { throw .invalid("token: \(problem)") }
        let rows = try mapped { () throws(StoreError) in
            try store.insert(table, [values], onConflict: .merge(on: ["user_id", "token"]), as: .user(userID))
        }
        guard let row = rows.first else { throw PushError(500, "not_stored", "the device token was not stored") }
        var json: [String: JSONValue] = [:]
        for (index, column) in table.columns.enumerated() { json[column.name] = column.json(row[index]) }
        return json
    }

    /// What is wrong with a device token, told plainly (the table's check would only name itself).
    static func problem(_ token: String) -> String? {
        do {
            let parsed = try PushToken(hex: token)
            guard token.utf8.count == parsed.bytes.count * 2 else { return "a device token is plain hex, without spaces or brackets" }
            guard (8...256).contains(parsed.bytes.count) else {
                return "a device token is 8 to 256 bytes (16 to 512 hex digits), this one is \(parsed.bytes.count)"
            }
            return nil
        } catch {
            return error.description
        }
    }

    /// Deletes the caller's row for `token`; returns how many rows went (0 or 1).
    func unregister(token: String, userID: String) throws(PushError) -> Int {
        let table = try mapped { () throws(StoreError) in try store.table("device_tokens") }
        let condition = RowQuery.Condition.all([
            .compare(column: "user_id", op: .eq, operand: .value(.text(userID))),
            .compare(column: "token", op: .eq, operand: .value(.text(token.lowercased()))),
        ])
        return try mapped { () throws(StoreError) in try store.delete(table, where: condition, as: .user(userID)).count }
    }

    private func mapped<T>(_ work: () throws(StoreError) -> T) throws(PushError) -> T {
        do { return try work() } catch {
            if error.isClientError { throw .invalid(error.details.map { "\(error.message): \($0)" } ?? error.message) }
            throw PushError(503, "store_unavailable", error.message)
        }
    }
}
