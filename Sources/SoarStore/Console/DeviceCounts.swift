import Foundation
import SoarCore

/// Devices counted by environment and bundle id: the console's Overview.
public struct DeviceCount: Sendable, Equatable {
    /// Nil where the app's `device_tokens` has no such column, or the row no value.
    public let environment: String?
    public let bundleID: String?
    public let count: Int
}

/// What the console counts, in one grouped query rather than rows read one by one.
public protocol ConsoleCounting: Sendable {
    /// Every row of the app's `device_tokens`, counted (empty when the app has no such table).
    func deviceCounts() throws(StoreError) -> [DeviceCount]
}

/// The grouped count, written once for both stores: the app's table, whichever of the two
/// columns it has.
struct DeviceCounting {
    let dialect: SQLDialect

    func counts(_ table: Table, on connection: some SQLConnection) throws(StoreError) -> [DeviceCount] {
        // As text on Postgres, where the app may have made either an enum.
        let cast = dialect == .postgres ? "::text" : ""
        let column = { (name: String) in table.column(name) != nil ? "\"\(name)\"\(cast)" : "NULL" }
        let source = dialect == .postgres ? "public.\"device_tokens\"" : "\"device_tokens\""
        return try connection.rows("SELECT \(column("environment")), \(column("bundle_id")), count(*) FROM \(source) GROUP BY 1, 2").map { row in
            DeviceCount(environment: row[0].text, bundleID: row[1].text, count: row[2].text.flatMap { Int($0) } ?? 0)
        }
    }
}
