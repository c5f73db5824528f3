import CSQLite
import Foundation
import SoarSchema
import SoarCore

/// Who the statements on a connection run for now: what `auth.uid()`, `auth.role()`,
/// `auth.jwt()` and `now()` answer in the app's policies, defaults and checks.
///
/// Set by the store before each request's statements (a nil access is Soar's own work, which
/// runs as the service role).
final class RequestContext {
    var access: Access?
    /// The request's time, as Postgres's `now()` is the transaction's; nil reads the clock.
    var time: String?
    /// The channel topic `realtime.topic()` answers while a private channel is authorized.
    var topic: String?
    /// Compiled `~` patterns, by pattern and case folding.
    var patterns: [String: NSRegularExpression] = [:]

    var role: String { access?.role.rawValue ?? "service_role" }

    /// What the next statements run for; ``SQLiteStore`` forgets it once its read or write is done,
    /// so Soar's own statements after a request never run as that request.
    func set(_ access: Access?, at time: String?, topic: String? = nil) {
        self.access = access
        self.time = time
        self.topic = topic
    }
    var claims: String {
        JSONValue.object(["role": .string(role), "sub": access?.userID.map(JSONValue.string) ?? .null, "aal": .string(access?.aal ?? "aal1")]).jsonText
    }
}

/// The SQL functions the app's translated SQL calls, registered on every connection.
enum SQLiteFunctions {
    static func register(on handle: OpaquePointer?, context: RequestContext) {
        let pointer = Unmanaged.passUnretained(context).toOpaque()
        let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(handle, "auth_uid", 0, SQLITE_UTF8, pointer, authUID, nil, nil, nil)
        sqlite3_create_function_v2(handle, "auth_role", 0, SQLITE_UTF8, pointer, authRole, nil, nil, nil)
        sqlite3_create_function_v2(handle, "auth_jwt", 0, SQLITE_UTF8, pointer, authJWT, nil, nil, nil)
        sqlite3_create_function_v2(handle, "auth_email", 0, SQLITE_UTF8, pointer, null, nil, nil, nil)
        sqlite3_create_function_v2(handle, "realtime_topic", 0, SQLITE_UTF8, pointer, realtimeTopic, nil, nil, nil)
        sqlite3_create_function_v2(handle, "now", 0, SQLITE_UTF8, pointer, now, nil, nil, nil)
        sqlite3_create_function_v2(handle, "gen_random_uuid", 0, SQLITE_UTF8, pointer, randomUUID, nil, nil, nil)
        sqlite3_create_function_v2(handle, "regexp", 2, deterministic, pointer, regexp, nil, nil, nil)
        // Postgres folds case beyond ASCII (lower('ÄBC') is 'äbc'); SQLite's own lower does not.
        sqlite3_create_function_v2(handle, "lower", 1, deterministic, pointer, lowercased, nil, nil, nil)
        sqlite3_create_function_v2(handle, "upper", 1, deterministic, pointer, uppercased, nil, nil, nil)
        sqlite3_create_function_v2(handle, "regexp_i", 2, deterministic, pointer, regexpFolded, nil, nil, nil)
        sqlite3_create_function_v2(handle, "soar_value", 2, deterministic, pointer, storedValue, nil, nil, nil)
        sqlite3_create_function_v2(handle, "soar_divisor", 1, deterministic, pointer, divisor, nil, nil, nil)
        sqlite3_create_function_v2(handle, "soar_ago", 1, SQLITE_UTF8, pointer, ago, nil, nil, nil)
        sqlite3_create_function_v2(handle, "soar_shift", 3, deterministic, pointer, shift, nil, nil, nil)
        sqlite3_create_function_v2(handle, "soar_fits", 2, deterministic, pointer, fits, nil, nil, nil)
        // Storage's name functions; arrays are JSON arrays on SQLite.
        sqlite3_create_function_v2(handle, "storage_foldername", 1, deterministic, pointer, folderName, nil, nil, nil)
        sqlite3_create_function_v2(handle, "storage_filename", 1, deterministic, pointer, fileName, nil, nil, nil)
        sqlite3_create_function_v2(handle, "storage_extension", 1, deterministic, pointer, fileExtension, nil, nil, nil)
        sqlite3_create_function_v2(handle, "soar_array_at", 2, deterministic, pointer, arrayElement, nil, nil, nil)
    }
}

// C callbacks: plain functions, their context through sqlite3_user_data.

private func context(_ call: OpaquePointer?) -> RequestContext {
    Unmanaged<RequestContext>.fromOpaque(sqlite3_user_data(call)!).takeUnretainedValue()
}

private func result(_ call: OpaquePointer?, _ text: String?) {
    guard let text else { return sqlite3_result_null(call) }
    sqlite3_result_text(call, text, -1, CSQLite_transient())
}

private func authUID(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, context(call).access?.userID)
}

private func realtimeTopic(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, context(call).topic)
}

private func authRole(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, context(call).role)
}

private func authJWT(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, context(call).claims)
}

private func null(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    sqlite3_result_null(call)
}

private func now(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, context(call).time ?? Timestamp.postgres(Date()))
}

private func randomUUID(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, RandomUUID.lowercase())
}

private func lowercased(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    folded(call, values) { $0.lowercased() }
}

private func uppercased(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    folded(call, values) { $0.uppercased() }
}

/// ASCII text is folded in place of a Swift round trip; NULL stays NULL.
private func folded(_ call: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?, _ fold: (String) -> String) {
    guard let values, let text = sqlite3_value_text(values[0]) else { return sqlite3_result_null(call) }
    let length = Int(sqlite3_value_bytes(values[0]))
    guard length > 0 else { return result(call, "") }
    let bytes = UnsafeBufferPointer(start: text, count: length)
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return result(call, fold(String(decoding: bytes, as: UTF8.self))) }
    let upper = fold("a") == "A"
    let out = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
        for (index, byte) in bytes.enumerated() {
            let isLower = byte >= 97 && byte <= 122, isUpper = byte >= 65 && byte <= 90
            buffer[index] = upper ? (isLower ? byte - 32 : byte) : (isUpper ? byte + 32 : byte)
        }
        initialized = length
    }
    out.withUnsafeBufferPointer { buffer in
        sqlite3_result_text(call, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(length), CSQLite_transient())
    }
}

private func regexp(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    match(call, values, folded: false)
}

private func regexpFolded(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    match(call, values, folded: true)
}

/// `text ~ pattern` (`regexp(pattern, text)`): NULL when either is NULL, as in Postgres.
private func match(_ call: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?, folded: Bool) {
    guard let values, let patternText = sqlite3_value_text(values[0]), let subjectText = sqlite3_value_text(values[1]) else {
        return sqlite3_result_null(call)
    }
    let pattern = String(cString: patternText)
    let subject = String(cString: subjectText)
    let context = context(call)
    let key = (folded ? "i:" : "c:") + pattern
    let expression: NSRegularExpression
    if let cached = context.patterns[key] {
        expression = cached
    } else {
        let options: NSRegularExpression.Options = folded ? [.dotMatchesLineSeparators, .caseInsensitive] : [.dotMatchesLineSeparators]
        guard let compiled = try? NSRegularExpression(pattern: PostgresPattern.icu(pattern), options: options) else {
            return sqlite3_result_error(call, "invalid regular expression: \(pattern)", -1)
        }
        if context.patterns.count > 64 { context.patterns.removeAll() }
        context.patterns[key] = compiled
        expression = compiled
    }
    let found = expression.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    sqlite3_result_int(call, found ? 1 : 0)
}

/// `soar_value('timestamptz', x)`: a value a migration writes (a seed row) as a column of that
/// Postgres type stores it, through the same conversion as the data API's writes (a timestamp in
/// Soar's one form, a UUID in lowercase, a boolean as 1 or 0); an error where Postgres would refuse it.
private func storedValue(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let values, let typeText = sqlite3_value_text(values[0]) else { return sqlite3_result_null(call) }
    let column = Column(Attribute(name: "value", type: String(cString: typeText)), relation: "", enums: [:])
    let value = values[1]
    switch sqlite3_value_type(value) {
    case SQLITE_NULL: return sqlite3_result_null(call)
    case SQLITE_FLOAT where column.kind == .integer:
        // A number to an integer type rounds half away from zero, as Postgres's numeric does.
        let number = sqlite3_value_double(value).rounded()
        guard number.magnitude < 9.2e18 else { return failed(call, StoreError(code: "22003", message: "bigint out of range")) }
        return stored(call, column, text: String(Int64(number)))
    case SQLITE_INTEGER where column.kind == .integer && column.type != "int8":
        return stored(call, column, text: String(sqlite3_value_int64(value)))  // within the type's range
    case SQLITE_INTEGER where [.integer, .numeric, .double, .boolean].contains(column.kind):
        let number = sqlite3_value_int64(value)
        return sqlite3_result_int64(call, column.kind == .boolean ? (number != 0 ? 1 : 0) : number)
    case SQLITE_FLOAT where [.numeric, .double].contains(column.kind):
        return sqlite3_result_double(call, sqlite3_value_double(value))
    default:
        stored(call, column, text: sqlite3_value_text(value).map { String(cString: $0) } ?? "")
    }
}

private func stored(_ call: OpaquePointer?, _ column: Column, text: String) {
    do {
        switch try column.storable(text: text) {
        case .null: sqlite3_result_null(call)
        case .integer(let number): sqlite3_result_int64(call, number)
        case .real(let number): sqlite3_result_double(call, number)
        case .text(let stored): result(call, stored)
        }
    } catch {
        failed(call, error)
    }
}

/// Fails the statement with `error`'s SQLSTATE, which ``SQLiteConnection/error(_:_:)`` reads back.
private func failed(_ call: OpaquePointer?, _ error: StoreError) {
    sqlite3_result_error(call, error.functionMessage, -1)
}

extension StoreError {
    /// A Soar SQL function's error as SQLite carries it: `[22012] division by zero`.
    var functionMessage: String { "[\(code)] \(message)" }

    /// The error a ``functionMessage`` carries; nil for any other message.
    init?(functionMessage text: String) {
        guard text.hasPrefix("["), let close = text.firstIndex(of: "]"), text.distance(from: text.startIndex, to: close) == 6 else { return nil }
        self.init(code: String(text[text.index(after: text.startIndex)..<close]), message: text[text.index(after: close)...].trimmingSpaces)
    }
}

/// `soar_fits(text, n)`: 1 when a `varchar(n)` column's value has at most `n` characters (or is
/// NULL), else Postgres's 22001.
private func fits(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let values, let text = textArgument(values, 0) else { return sqlite3_result_int(call, 1) }
    let limit = sqlite3_value_int64(values[1])
    guard text.unicodeScalars.count <= limit else {
        return failed(call, StoreError(code: "22001", message: "value too long for type character varying(\(limit))"))
    }
    sqlite3_result_int(call, 1)
}

/// `a / soar_divisor(b)`: `b`, or Postgres's error when it is zero (SQLite's own answer is NULL).
private func divisor(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let value = values?[0] else { return sqlite3_result_null(call) }
    switch sqlite3_value_numeric_type(value) {
    case SQLITE_INTEGER where sqlite3_value_int64(value) == 0, SQLITE_FLOAT where sqlite3_value_double(value) == 0:
        failed(call, StoreError(code: "22012", message: "division by zero"))
    default:
        sqlite3_result_value(call, value)
    }
}

/// `soar_ago(seconds)`: the request's time (or now) that many seconds earlier, in the stored form.
private func ago(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    let seconds = values.map { sqlite3_value_double($0[0]) } ?? 0
    let time = context(call).time.flatMap(Timestamp.parse) ?? Date()
    result(call, Timestamp.postgres(time.addingTimeInterval(-seconds)))
}

/// `soar_shift(time, seconds, months)`: `time ± interval` (see the translator's intervals): the
/// calendar months first, clamped to the month's last day as Postgres does, then the seconds.
private func shift(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let values, let text = textArgument(values, 0) else { return sqlite3_result_null(call) }
    guard var date = Timestamp.parse(text) else {
        return failed(call, StoreError(code: "22007", message: "invalid input syntax for type timestamp with time zone: \"\(text)\""))
    }
    let months = Int(sqlite3_value_int64(values[2]))
    if months != 0 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        date = calendar.date(byAdding: .month, value: months, to: date) ?? date
    }
    result(call, Timestamp.postgres(date.addingTimeInterval(sqlite3_value_double(values[1]))))
}

private func textArgument(_ values: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
    guard let values, let text = sqlite3_value_text(values[index]) else { return nil }
    return String(cString: text)
}

private func folderName(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let name = textArgument(values, 0) else { return sqlite3_result_null(call) }
    result(call, JSONValue.array(StorageName.folders(name).map(JSONValue.string)).jsonText)
}

private func fileName(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, textArgument(values, 0).map(StorageName.file))
}

private func fileExtension(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    result(call, textArgument(values, 0).map(StorageName.fileExtension))
}

/// `array[i]` as Postgres answers it: counted from 1, NULL outside the array.
private func arrayElement(_ call: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let values, let text = textArgument(values, 0), case .array(let items)? = try? JSONValue.read(Data(text.utf8)) else {
        return sqlite3_result_null(call)
    }
    let index = Int(sqlite3_value_int64(values[1]))
    guard index >= 1, index <= items.count else { return sqlite3_result_null(call) }
    switch items[index - 1] {
    case .string(let item): result(call, item)
    case .null: sqlite3_result_null(call)
    case let other: result(call, other.jsonText)
    }
}
