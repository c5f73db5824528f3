import Foundation
import SoarCore
import SoarSchema

/// Realtime's change log on Postgres (``ChangeCapture``): every process reads the same log.
extension PostgresStore {
    private static let capture = ChangeCapture(dialect: .postgres)

    public var realtimeTables: Set<String> { realtime.withLock { $0 } }

    public func lastChangeID() throws(StoreError) -> Int64 {
        try run { connection throws(StoreError) in try Self.capture.lastChangeID(on: connection) }
    }

    public func changes(after id: Int64, missing: [Int64], limit: Int) throws(StoreError) -> [RowChange] {
        try run { connection throws(StoreError) in try Self.capture.changes(after: id, missing: missing, limit: limit, on: connection) }
    }

    public func pruneChanges(olderThan seconds: Int) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.capture.prune(olderThan: seconds, on: connection) }
    }
}
