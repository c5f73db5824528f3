import Foundation
import SoarCore
import SoarStore

/// Push's reads and writes of `device_tokens`, as the service role (push acts for the server).
struct DeviceRows: Sendable {
    let store: any DataStore
    /// What every device read must also meet (a send's kind: users who muted it left out).
    var only: RowQuery.Condition? = nil

    /// The same reads, of the devices meeting `condition` too.
    func meeting(_ condition: RowQuery.Condition?) -> DeviceRows {
        guard let condition else { return self }
        var rows = self
        rows.only = only.map { .all([$0, condition]) } ?? condition
        return rows
    }

    /// The iOS devices condition every read starts from.
    private var iOS: [RowQuery.Condition] { [Self.equal("platform", "ios")] + (only.map { [$0] } ?? []) }

    /// The user's iOS devices, oldest registration first. (Every query here returns devices by
    /// user, each user's oldest first.)
    func iOSDevices(of userID: String) throws(StoreError) -> [Device] {
        try iOSDevices(where: Self.equal("user_id", userID))
    }

    /// Every iOS device of these users (`column` `user_id`) or with these tokens (`token`).
    func iOSDevices(_ column: String, in values: [String]) throws(StoreError) -> [Device] {
        var devices: [Device] = []
        // Bounded lists keep each statement under SQLite's limit on bound values.
        for start in stride(from: 0, to: values.count, by: 10_000) {
            let chunk = values[start..<min(start + 10_000, values.count)].map { SQLValue.text($0) }
            devices += try iOSDevices(where: .compare(column: column, op: .in, operand: .list(chunk)))
        }
        return devices
    }

    /// The time zones of the iOS devices meeting `condition` (nil for those without one), each once.
    ///
    /// - Throws: 42703 when `device_tokens` has no `time_zone` column.
    func timeZones(where condition: RowQuery.Condition?) throws(StoreError) -> Set<String?> {
        let table = try table()
        guard let column = table.position(of: "time_zone") else {
            throw StoreError(code: "42703", message: "column device_tokens.time_zone does not exist (the starter's 20250105000000_device_attributes.sql adds it)")
        }
        var query = RowQuery()
        query.condition = .all(iOS + (condition.map { [$0] } ?? []))
        query.outputs = [RowQuery.Output(column: "time_zone", key: "time_zone")]
        return Set(try store.select(table, query, as: .service, counting: false).rows.map { row -> String? in
            if case .text(let zone) = row[column] { zone } else { nil }
        })
    }

    /// How many iOS devices there are.
    func iOSDeviceCount() throws(StoreError) -> Int {
        var query = RowQuery()
        query.condition = .all(iOS)
        query.limit = 0
        return try store.select(try table(), query, as: .service, counting: true).total ?? 0
    }

    /// How many iOS devices of these users (`column` `user_id`) or with these tokens (`token`).
    func iOSDeviceCount(_ column: String, in values: [String]) throws(StoreError) -> Int {
        var total = 0
        for start in stride(from: 0, to: values.count, by: 10_000) {
            var query = RowQuery()
            let chunk = values[start..<min(start + 10_000, values.count)].map { SQLValue.text($0) }
            query.condition = .all(iOS + [.compare(column: column, op: .in, operand: .list(chunk))])
            query.limit = 0
            total += try store.select(try table(), query, as: .service, counting: true).total ?? 0
        }
        return total
    }

    /// The iOS devices of the users after `user` (of every user when nil), users in id order and
    /// each user's devices in token order (the table's key): about `size` of them, never part of
    /// a user's devices. Empty after the last user.
    func iOSDevices(after user: String?, size: Int) throws(StoreError) -> [Device] {
        var query = RowQuery()
        query.condition = .all(iOS + (user.map { [.compare(column: "user_id", op: .gt, operand: .value(.text($0)))] } ?? []))
        query.order = [RowQuery.Order(column: "user_id"), RowQuery.Order(column: "token")]
        query.limit = size
        let table = try table()
        let page = try store.select(table, query, as: .service, counting: false).rows.map { device($0, in: table) }
        guard page.count == size, let last = page.last?.userID else { return page }
        // The last user's devices may go on past the page: they go whole into the next one, or,
        // when the page is that one user's, are read whole now (as read, if they went meanwhile).
        let whole = page.prefix { $0.userID != last }
        guard whole.isEmpty else { return Array(whole) }
        let all = try iOSDevices(of: last)
        return all.isEmpty ? page : all
    }

    private func iOSDevices(where condition: RowQuery.Condition?) throws(StoreError) -> [Device] {
        var query = RowQuery()
        query.condition = .all(iOS + (condition.map { [$0] } ?? []))
        query.order = [RowQuery.Order(column: "user_id"), RowQuery.Order(column: "created_at"), RowQuery.Order(column: "token")]
        let table = try table()
        return try store.select(table, query, as: .service, counting: false).rows.map { device($0, in: table) }
    }

    /// Deletes the device's row. With Apple's timestamp (a 410), only if the row was not
    /// registered again after Apple learned the token was gone.
    ///
    /// - Returns: whether a row was deleted.
    func remove(_ device: Device, unlessUpdatedSince appleTime: Date?) throws(StoreError) -> Bool {
        var conditions = key(device)
        if let appleTime {
            conditions.append(.compare(column: "updated_at", op: .lt, operand: .value(.text(Timestamp.postgres(appleTime)))))
        }
        return try !store.delete(try table(), where: .all(conditions), as: .service).isEmpty
    }

    /// Records where the device's token works, leaving `updated_at` as it was (the app did not register again).
    func record(_ environment: PushEnvironment, for device: Device) throws(StoreError) {
        var updatedAt = device.updatedAt
        if updatedAt.isEmpty {
            var query = RowQuery()
            query.condition = .all(key(device))
            let table = try table()
            guard let row = try store.select(table, query, as: .service, counting: false).rows.first else { return }
            updatedAt = self.device(row, in: table).updatedAt
        }
        _ = try store.update(
            try table(), set: ["environment": .text(environment.rawValue), "updated_at": .text(updatedAt)], where: .all(key(device)), as: .service)
    }

    /// The app's `device_tokens` (42P01 when its migrations have none).
    private func table() throws(StoreError) -> Table { try store.table("device_tokens") }

    private func key(_ device: Device) -> [RowQuery.Condition] {
        [Self.equal("user_id", device.userID), Self.equal("token", device.token)]
    }

    private static func equal(_ column: String, _ value: String) -> RowQuery.Condition {
        .compare(column: column, op: .eq, operand: .value(.text(value)))
    }

    /// The fields push reads of a row, wherever the app's table has them.
    private static let fields = ["user_id", "token", "environment", "bundle_id", "updated_at", "locale"]

    private func device(_ row: StoredRow, in table: Table) -> Device {
        func text(_ field: Int) -> String? {
            guard let position = table.position(of: Self.fields[field]), case .text(let value) = row[position] else { return nil }
            return value
        }
        return Device(
            userID: text(0) ?? "", token: text(1) ?? "", environment: text(2).flatMap(PushEnvironment.init(named:)), bundleID: text(3),
            updatedAt: text(4) ?? "", locale: text(5))
    }
}
