import Foundation
import SoarCore
import SoarSchema

/// A row change as the capture triggers record it: which row of which table, and how. Realtime
/// reads the row itself afterwards, as each subscriber, so that policies decide who sees it.
public struct RowChange: Sendable, Equatable {
    public var id: Int64
    public var table: String
    /// `INSERT`, `UPDATE` or `DELETE`.
    public var type: String
    /// The row's primary key, column by column.
    public var key: [String: JSONValue]
    /// When it was committed (ISO 8601, UTC).
    public var at: String
    /// The row's rowid, on SQLite: a batch's rows are read by it (see `0027_changes_rowid.sql`).
    public var rowid: Int64? = nil
}

/// Where realtime reads the changes made through any path (the data API, Soar's own writes, SQL,
/// another process on the same database).
public protocol ChangeLog: Sendable {
    /// The tables in the `supabase_realtime` publication, as the app's migrations left it.
    var realtimeTables: Set<String> { get }
    /// The newest change's id (0 when none): where a new reader starts.
    func lastChangeID() throws(StoreError) -> Int64
    /// Changes after `id`, and those of `missing` that are there now (ids skipped before, by a
    /// transaction that had not committed yet), oldest first.
    func changes(after id: Int64, missing: [Int64], limit: Int) throws(StoreError) -> [RowChange]
    /// Forgets changes older than `seconds`.
    func pruneChanges(olderThan seconds: Int) throws(StoreError)
}

/// The capture triggers and the log's queries, written once for both stores: `soar_changes` with a
/// trigger per table on SQLite, `soar.changes` with `soar.capture_change()` on Postgres.
struct ChangeCapture {
    let dialect: SQLDialect

    private var log: String { dialect == .postgres ? "soar.changes" : "soar_changes" }

    /// Triggers on each table in the `supabase_realtime` publication that has a primary key,
    /// replaced each time; the other tables' are dropped.
    func triggers(for schema: Schema) -> String {
        let tables = schema.relations.values.filter { !$0.isView && !Schema.isBuiltIn($0.name) }.sorted { $0.name < $1.name }
        return tables.map { relation in
            let name = Self.quoted(relation.name)
            let captured = schema.realtime.contains(relation.name) && !relation.primaryKey.isEmpty
            switch dialect {
            case .postgres:
                let drop = "DROP TRIGGER IF EXISTS soar_capture ON public.\(name);"
                guard captured else { return drop }
                let keys = relation.primaryKey.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ")
                return drop + """

                    CREATE TRIGGER soar_capture AFTER INSERT OR UPDATE OR DELETE ON public.\(name)
                        FOR EACH ROW EXECUTE FUNCTION soar.capture_change(\(keys));
                    """
            case .sqlite:
                return ["INSERT", "UPDATE", "DELETE"].map { type in
                    let trigger = Self.quoted("soar_capture_\(relation.name)_\(type.lowercased())")
                    let drop = "DROP TRIGGER IF EXISTS \(trigger);"
                    guard captured else { return drop }
                    let row = type == "DELETE" ? "OLD" : "NEW"
                    let key = relation.primaryKey.map { "'\($0.replacingOccurrences(of: "'", with: "''"))', \(row).\(Self.quoted($0))" }.joined(separator: ", ")
                    return drop + """

                        CREATE TRIGGER \(trigger) AFTER \(type) ON \(name) BEGIN
                            INSERT INTO soar_changes (tbl, type, pk, rid) VALUES ('\(relation.name.replacingOccurrences(of: "'", with: "''"))', '\(type)', json_object(\(key)), \(row).rowid);
                        END;
                        """
                }.joined(separator: "\n")
            }
        }.joined(separator: "\n")
    }

    func lastChangeID(on connection: some SQLConnection) throws(StoreError) -> Int64 {
        try connection.rows("SELECT COALESCE(MAX(id), 0) FROM \(log)").first?.first?.text.flatMap { Int64($0) } ?? 0
    }

    func changes(after id: Int64, missing: [Int64], limit: Int, on connection: some SQLConnection) throws(StoreError) -> [RowChange] {
        let earlier = missing.isEmpty ? "" : " OR id IN (" + missing.map(String.init).joined(separator: ",") + ")"
        let at = dialect == .postgres ? "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')" : "at"
        let key = dialect == .postgres ? "pk::text" : "pk"
        let rowid = dialect == .postgres ? "NULL" : "rid"
        return try connection.rows(
            "SELECT id, tbl, type, \(key), \(at), \(rowid) FROM \(log) WHERE id > $1\(earlier) ORDER BY id LIMIT $2",
            [.integer(id), .integer(Int64(limit + missing.count))]
        ).compactMap { row in
            guard let id = row[0].text.flatMap({ Int64($0) }), let table = row[1].text, let type = row[2].text else { return nil }
            let key = row[3].text.flatMap { try? JSONValue.read(Data($0.utf8)) }?.objectValue ?? [:]
            let rowid: Int64? = if case .integer(let value) = row[5] { value } else { nil }
            return RowChange(id: id, table: table, type: type, key: key, at: row[4].text ?? "", rowid: rowid)
        }
    }

    func prune(olderThan seconds: Int, on connection: some SQLConnection) throws(StoreError) {
        let cutoff = dialect == .postgres
            ? "clock_timestamp() - make_interval(secs => $1)"
            : "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || $1 || ' seconds')"
        try connection.rows("DELETE FROM \(log) WHERE at < \(cutoff)", [.integer(Int64(seconds))])
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
