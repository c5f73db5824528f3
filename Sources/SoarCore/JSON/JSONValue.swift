import Foundation

/// Any JSON value, kept exactly as it came so a decode-then-encode round trip loses nothing.
///
/// Integers and fractional numbers stay distinct, so `"badge": 1` is written back as `1`, not
/// `1.0`; numbers read from text that `Int` cannot hold exactly keep that text (``number(_:)``).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    /// A number exactly as written (`1.0`, `2.5e3`, `12345678901234567890`), from ``read(_:)-(Data)``.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// Fractions compare by value, however they were written: `.number("0.50") == .double(0.5)`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double, .double), (.double, .number), (.number, .double), (.number, .number): lhs.doubleValue == rhs.doubleValue
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .double, .number: hasher.combine(doubleValue)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .number(let text): try container.encode(Decimal(string: text) ?? Decimal(Double(text) ?? 0))
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var intValue: Int? {
        switch self {
        case .int(let v): v
        case .double(let v) where v.rounded() == v && abs(v) < 9e15: Int(v)
        case .number(let text): Double(text).flatMap { JSONValue.double($0).intValue }
        default: nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        case .number(let text): Double(text)
        default: nil
        }
    }
    public var arrayValue: [JSONValue]? { if case .array(let v) = self { v } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let v) = self { v } else { nil } }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Bridges a Foundation property-list value (such as a notification's `userInfo`) into JSON.
    public init?(any value: Any) {
        switch value {
        case let v as JSONValue: self = v
        case let v as String: self = .string(v)
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(v)
        case let v as Double: self = .double(v)
        case let v as NSNull: _ = v; self = .null
        case let v as [Any]:
            var items: [JSONValue] = []
            for item in v {
                guard let json = JSONValue(any: item) else { return nil }
                items.append(json)
            }
            self = .array(items)
        case let v as [AnyHashable: Any]:
            var object: [String: JSONValue] = [:]
            for (key, item) in v {
                guard let key = key.base as? String, let json = JSONValue(any: item) else { return nil }
                object[key] = json
            }
            self = .object(object)
        default: return nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
