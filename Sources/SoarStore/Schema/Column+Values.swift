import Foundation
import SoarCore

extension Column {
    /// A JSON value from a request body as this column stores it.
    ///
    /// - Throws: ``StoreError`` 22P02 when the value does not fit the type, as Postgres would.
    public func storable(_ value: JSONValue) throws(StoreError) -> SQLValue {
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
            guard let uuid = UUID(uuidString: text) else { throw .invalidText("uuid", text) }
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
            return .text(StoredTime.format(date))
        }
    }

    /// A stored value as PostgREST renders it in JSON.
    public func json(_ value: SQLValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .integer(let v): return kind == .boolean ? .bool(v != 0) : .int(Int(v))
        case .real(let v): return .double(v)
        case .text(let v): return .string(v)
        }
    }
}

/// Timestamps as the store keeps them: UTC with microseconds and `+00:00`, as PostgREST prints
/// timestamptz. Fixed width, so text order is time order.
public enum StoredTime {
    public static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let fraction = micros - seconds * 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let clock = seconds - days * 86_400
        // Days since 1970-01-01 to a civil date, in 400-year eras (no Calendar on the hot path).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ width: Int) -> String {
            let text = String(v)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(clock / 3600, 2)):\(pad(clock / 60 % 60, 2)):\(pad(clock % 60, 2))"
            + ".\(pad(fraction, 6))+00:00"
    }
}
