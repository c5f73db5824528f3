import Foundation
import SoarCore

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
            guard kind == .boolean || kind == .text else { throw .invalidText(kind.rawValue, flag ? "true" : "false") }
            return kind == .boolean ? .integer(flag ? 1 : 0) : .text(flag ? "true" : "false")
        case .int, .double, .number:
            let text = value.jsonText
            if kind == .text { return .text(text) }
            guard kind == .bigint else { throw .invalidText(kind.rawValue, text) }
            // Decided from the text, never through Double: an integer, or one written with a zero
            // fraction (`2.0`); beyond 64 bits 22003, anything else 22P02.
            if case .int(let integer) = value { return .integer(Int64(integer)) }
            var digits = Substring(text)
            if let dot = digits.firstIndex(of: "."), digits[digits.index(after: dot)...].allSatisfy({ $0 == "0" }) { digits = digits[..<dot] }
            let integral = !digits.isEmpty && digits.drop(while: { $0 == "-" }).allSatisfy(\.isASCIIDigit) && digits.filter({ $0 == "-" }).count <= 1
            guard integral else { throw .invalidText(kind.rawValue, text) }
            guard let integer = Int64(digits) else { throw StoreError(code: "22003", message: "value \"\(text.prefix(40))\" is out of range for type bigint") }
            return .integer(integer)
        case .array, .object:
            throw .invalidText(kind.rawValue, value.jsonText)
        }
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

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
