import Foundation
import SoarCore
import SoarSchema

extension Column {
    /// A JSON value from a request body as this column stores it.
    ///
    /// - Throws: ``StoreError`` 22P02 when the value does not fit the type, as Postgres would.
    public func storable(_ value: JSONValue) throws(StoreError) -> SQLValue {
        if kind == .jsonb {
            // jsonb keeps its strings (and keys) as text: no NUL there either.
            if Self.holdsNUL(value) { throw .nulCharacter }
            return value == .null ? .null : .text(value.jsonText)
        }
        switch value {
        case .null: return .null
        case .string(let text): return try storable(text: text)
        case .bool(let flag):
            guard kind == .boolean || kind == .text else { throw .invalidText(typeName, flag ? "true" : "false") }
            return kind == .boolean ? .integer(flag ? 1 : 0) : .text(flag ? "true" : "false")
        case .int, .double, .number:
            let text = value.jsonText
            switch kind {
            case .text: return .text(text)
            case .integer: return try integer(value, text)
            case .numeric, .double:
                guard let number = Double(text) else { throw .invalidText(typeName, text) }
                if kind == .numeric, case .int(let integer) = value { return .integer(Int64(integer)) }
                return .real(number)
            default: throw .invalidText(typeName, text)
            }
        case .array, .object:
            throw .invalidText(typeName, value.jsonText)
        }
    }

    /// Decided from the text, never through Double: an integer, or one written with a zero
    /// fraction (`2.0`); beyond 64 bits 22003, anything else 22P02.
    private func integer(_ value: JSONValue, _ text: String) throws(StoreError) -> SQLValue {
        if case .int(let integer) = value { return try bounded(Int64(integer), text) }
        var digits = Substring(text)
        if let dot = digits.firstIndex(of: "."), digits[digits.index(after: dot)...].allSatisfy({ $0 == "0" }) { digits = digits[..<dot] }
        let integral = !digits.isEmpty && digits.drop(while: { $0 == "-" }).allSatisfy(\.isASCIIDigit) && digits.filter({ $0 == "-" }).count <= 1
        guard integral else { throw .invalidText(typeName, text) }
        guard let integer = Int64(digits) else { throw StoreError(code: "22003", message: "value \"\(text.prefix(40))\" is out of range for type \(typeName)") }
        return try bounded(integer, text)
    }

    /// int2 and int4 hold less than int8.
    private func bounded(_ value: Int64, _ text: String) throws(StoreError) -> SQLValue {
        let range: ClosedRange<Int64> = switch type {
        case "int2": Int64(Int16.min)...Int64(Int16.max)
        case "int4": Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
        guard range.contains(value) else {
            throw StoreError(code: "22003", message: type == "int2" ? "smallint out of range" : "integer out of range")
        }
        return .integer(value)
    }

    private static func holdsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): text.utf8.contains(0)
        case .array(let items): items.contains(where: holdsNUL)
        case .object(let fields): fields.contains { $0.key.utf8.contains(0) || holdsNUL($0.value) }
        default: false
        }
    }

    /// Text from a query string or a JSON string as this column stores it.
    public func storable(text: String) throws(StoreError) -> SQLValue {
        // Postgres text holds no NUL, so neither store takes one (22P05, as Postgres).
        if text.utf8.contains(0) { throw .nulCharacter }
        switch kind {
        case .text, .bytea:
            return .text(canonical(text))
        case .enumeration:
            guard labels.contains(text) else { throw StoreError(code: "22P02", message: "invalid input value for enum \(type): \"\(text)\"") }
            return .text(text)
        case .uuid:
            guard let uuid = RandomUUID.parse(text) else { throw .invalidText("uuid", text) }
            return .text(RandomUUID.text(uuid))
        case .integer:
            guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw .invalidText(type == "int8" ? "bigint" : type == "int2" ? "smallint" : "integer", text) }
            return try bounded(value, text)
        case .numeric, .double:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if kind == .numeric, let integer = Int64(trimmed) { return .integer(integer) }
            guard let value = Double(trimmed), value.isFinite || kind == .double else { throw .invalidText(kind == .numeric ? "numeric" : "double precision", text) }
            return .real(value)
        case .boolean:
            guard let value = TypeMapping.boolean(text) else { throw .invalidText("boolean", text) }
            return .integer(value ? 1 : 0)
        case .timestamptz, .timestamp:
            guard let date = Timestamp.parse(text) else { throw .invalidText(kind == .timestamp ? "timestamp" : "timestamp with time zone", text) }
            return .text(Timestamp.postgres(date))
        case .date:
            guard let date = Timestamp.parse(text) else { throw .invalidText("date", text) }
            return .text(String(Timestamp.postgres(date).prefix(10)))
        case .jsonb:
            guard let value = try? JSONValue.read(Data(text.utf8)) else { throw .invalidText("json", text) }
            return .text(value.jsonText)
        }
    }

    /// A stored value as PostgREST renders it in JSON.
    public func json(_ value: SQLValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .integer(let v): return kind == .boolean ? .bool(v != 0) : .int(Int(v))
        case .real(let v): return .double(v)
        case .text(let v):
            switch kind {
            case .jsonb: return (try? JSONValue.read(Data(v.utf8))) ?? .string(v)
            case .numeric, .double: return Double(v) != nil ? .number(v) : .string(v)
            case .integer: return Int(v).map(JSONValue.int) ?? .string(v)
            case .boolean: return .bool(v == "t" || v == "true" || v == "1")
            default: return .string(v)
            }
        }
    }
}

extension Column.Kind {
    /// Text of this kind is a JSON string as it is (``Column/json(_:)``); other kinds read it.
    var isWrittenAsString: Bool {
        switch self {
        case .uuid, .text, .timestamptz, .timestamp, .date, .bytea, .enumeration: true
        case .integer, .boolean, .numeric, .double, .jsonb: false
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Column {
    /// A value Postgres printed as text, in the shape the SQLite store keeps (so every layer
    /// above sees one form).
    func stored(postgres text: String?) -> SQLValue {
        guard let text else { return .null }
        switch kind {
        case .integer: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case .boolean: return .integer(text == "t" || text == "true" ? 1 : 0)
        case .timestamptz: return .text(Timestamp.parse(text).map(Timestamp.postgres) ?? text)
        case .double: return Double(text).map(SQLValue.real) ?? .text(text)
        // numeric keeps its digits exactly (rendered as a JSON number from the text).
        case .uuid, .text, .jsonb, .numeric, .timestamp, .date, .bytea, .enumeration: return .text(text)
        }
    }
}
