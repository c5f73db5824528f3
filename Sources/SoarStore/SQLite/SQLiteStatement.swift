import CSQLite
import SoarCore
import Foundation

/// A prepared statement: bind values by number, step through rows, read columns.
final class SQLiteStatement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection
    /// For each of SQLite's parameter slots, the value it takes: `$3` and `?3` take the third, as
    /// in Postgres (SQLite numbers `$n` slots in order of appearance). Nil when slot n takes value n.
    private let positions: [Int]?

    init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
        let slots = (0..<Int(sqlite3_bind_parameter_count(raw))).map { slot in
            sqlite3_bind_parameter_name(raw, Int32(slot + 1)).flatMap { Int(String(cString: $0).dropFirst()) }.map { $0 - 1 } ?? slot
        }
        positions = slots.enumerated().allSatisfy { $0 == $1 } ? nil : slots
    }

    deinit { sqlite3_finalize(raw) }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Binds `values` to $1 (or ?1), $2, ….
    func bind(_ values: [SQLValue]) throws(StoreError) {
        guard let positions else {
            // A function's body may leave an argument unused (or mean a column of the same name):
            // its value has no slot, as Postgres lets a function leave an argument unused.
            let slots = Int(sqlite3_bind_parameter_count(raw))
            for (offset, value) in values.enumerated() where offset < slots { try bind(value, at: offset) }
            return
        }
        for (slot, position) in positions.enumerated() where position < values.count { try bind(values[position], at: slot) }
    }

    private func bind(_ value: SQLValue, at slot: Int) throws(StoreError) {
        let index = Int32(slot + 1)
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(raw, index)
        case .integer(let v): result = sqlite3_bind_int64(raw, index, v)
        case .real(let v): result = sqlite3_bind_double(raw, index, v)
        case .text(var v): result = v.withUTF8 { Self.bindText($0, at: index, on: raw) }
        }
        guard result == SQLITE_OK else { throw SQLiteConnection.error(result, connection.lastMessage) }
    }

    /// Binds UTF-8 bytes with their length, straight from the string's storage (SQLite copies them).
    private static func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32, on raw: OpaquePointer) -> Int32 {
        // An empty buffer may have no address, which SQLite would bind as NULL.
        guard let base = bytes.baseAddress else { return sqlite3_bind_text(raw, index, "", 0, CSQLite_transient()) }
        return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            sqlite3_bind_text64(raw, index, $0, UInt64(bytes.count), CSQLite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    /// Advances to the next row; false when done.
    func step() throws(StoreError) -> Bool {
        let result = sqlite3_step(raw)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        let error = SQLiteConnection.error(result, connection.lastMessage)
        sqlite3_reset(raw)
        throw error
    }

    var columnCount: Int { Int(sqlite3_column_count(raw)) }

    func value(_ column: Int) -> SQLValue {
        let index = Int32(column)
        switch sqlite3_column_type(raw, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(raw, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(raw, index))
        case SQLITE_NULL: return .null
        default:
            guard let text = sqlite3_column_text(raw, index) else { return .null }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(raw, index))), as: UTF8.self))
        }
    }

    /// Runs to completion and returns every row.
    func rows(_ values: [SQLValue]) throws(StoreError) -> [[SQLValue]] {
        try bind(values)
        var rows: [[SQLValue]] = []
        let count = columnCount
        while try step() { rows.append((0..<count).map(value)) }
        sqlite3_reset(raw)
        return rows
    }

    /// Runs to completion and returns the first column of every row as an integer.
    func integers(_ values: [SQLValue]) throws(StoreError) -> [Int64] {
        try bind(values)
        var column: [Int64] = []
        while try step() { column.append(sqlite3_column_int64(raw, 0)) }
        sqlite3_reset(raw)
        return column
    }

    /// Runs to completion, calling `row` at each row (read its columns meanwhile).
    func each(_ values: [SQLValue], _ row: () -> Void) throws(StoreError) {
        try bind(values)
        while try step() { row() }
        sqlite3_reset(raw)
    }

    /// Writes a column of the current row as ``Column/json(_:)`` renders its value, straight from
    /// SQLite's copy for the common cases (null, integers, booleans, ASCII text) and through
    /// ``value(_:)`` for the rest, so the two paths write the same JSON.
    func writeJSON(_ index: Int, of columns: [Column], to out: inout [UInt8]) {
        let position = Int32(index)
        let kind = columns[index].kind
        switch sqlite3_column_type(raw, position) {
        case SQLITE_NULL: out.append(contentsOf: "null".utf8)
        case SQLITE_INTEGER:
            let number = sqlite3_column_int64(raw, position)
            if kind == .boolean { out.append(contentsOf: (number != 0 ? "true" : "false").utf8) } else { JSONValue.writeInteger(number, to: &out) }
        case SQLITE_TEXT where kind.isWrittenAsString:
            guard let text = sqlite3_column_text(raw, position) else { return out.append(contentsOf: "null".utf8) }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(raw, position)))
            // Other text may not be valid UTF-8: String repairs it, as the other path does.
            if !JSONValue.writeString(ascii: bytes, to: &out) { columns[index].json(value(index)).write(to: &out) }
        default: columns[index].json(value(index)).write(to: &out)
        }
    }

    /// Runs to completion and ignores rows.
    func run(_ values: [SQLValue]) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(raw)
    }
}
