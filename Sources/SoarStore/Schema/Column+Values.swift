import Foundation
import SoarCore

extension Column {
    /// A JSON value from a request body as this column stores it.
    ///
    /// - Throws: ``StoreError`` 22P02 when the value does not fit the type, as Postgres would.
    public func storable(_ value: JSONValue) throws(StoreError) -> SQLValue {
        if kind == .jsonb { return value == .null ? .null : .text(value.jsonText) }
        switch value {
        case .null: return .null
        case .string(let text): return try storable(text: text)
        case .bool(let flag):
            guard kind == .boolean || kind == .text else { throw .invalidText(kind.rawValue, flag ? "true" : "false") }
            return kind == .boolean ? .integer(flag ? 1 : 0) : .text(flag ? "true" : "false")
        case .int, .double, .number:
            let text = value.jsonText
            if kind == .text { return .text(text) }
            guard kind == .bigint, let integer = Int64(exactly: value.doubleValue ?? .nan), value.intValue != nil else {
                throw .invalidText(kind.rawValue, text)
            }
            return .integer(integer)
        case .array, .object:
            throw .invalidText(kind.rawValue, value.jsonText)
        }
    }

    /// Text from a query string or a JSON string as this column stores it.
    public func storable(text: String) throws(StoreError) -> SQLValue {
        switch kind {
        case .text:
            return .text(text)
        case .uuid:
            guard let uuid = RandomUUID.parse(text) else { throw .invalidText("uuid", text) }
            return .text(RandomUUID.text(uuid))
        case .bigint:
            guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw .invalidText("bigint", text) }
            return .integer(value)
        case .boolean:
            switch text.lowercased() {
            case "true", "t", "yes", "y", "on", "1": return .integer(1)
            case "false", "f", "no", "n", "off", "0": return .integer(0)
            default: throw .invalidText("boolean", text)
            }
        case .timestamptz:
            guard let date = Timestamp.parse(text) else { throw .invalidText("timestamp with time zone", text) }
            return .text(Timestamp.postgres(date))
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
        case .text(let v): return kind == .jsonb ? (try? JSONValue.read(Data(v.utf8))) ?? .string(v) : .string(v)
        }
    }
}
