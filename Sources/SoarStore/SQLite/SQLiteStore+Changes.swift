import Foundation
import SoarCore
import SoarSchema

/// Realtime's change log on SQLite (``ChangeCapture``).
extension SQLiteStore {
    private static let capture = ChangeCapture(dialect: .sqlite)

    public var realtimeTables: Set<String> { model.withLock { $0.realtime } }

    public func lastChangeID() throws(StoreError) -> Int64 {
        try read { connection throws(StoreError) in try Self.capture.lastChangeID(on: connection) }
    }

    public func changes(after id: Int64, missing: [Int64], limit: Int) throws(StoreError) -> [RowChange] {
        try read { connection throws(StoreError) in try Self.capture.changes(after: id, missing: missing, limit: limit, on: connection) }
    }

    public func pruneChanges(olderThan seconds: Int) throws(StoreError) {
        try write { connection throws(StoreError) in try Self.capture.prune(olderThan: seconds, on: connection) }
    }
}
