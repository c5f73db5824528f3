import SoarSchema

/// One column of a relation the data API serves: its name, Postgres type, and what Soar adds.
public struct Column: Sendable {
    /// How values of the column's Postgres type travel: from JSON and query strings, into the store, back to JSON.
    public enum Kind: String, Sendable {
        case uuid, text, integer, boolean, numeric, double, timestamptz, timestamp, date, jsonb, bytea, enumeration
    }

    public let name: String
    public let kind: Kind
    /// Postgres's name of the type, for messages (`bigint` is `int8` there).
    public let type: String
    public let nullable: Bool
    /// An enum's labels.
    public let labels: [String]
    /// Set to now on every update that does not set it itself (`updated_at`, as a `moddatetime` trigger would).
    public let touchedOnUpdate: Bool
    /// Stored and compared in lowercase (device tokens: one device is one row whatever case it came in).
    public let lowercased: Bool

    public init(_ name: String, _ kind: Kind, type: String? = nil, nullable: Bool = true, labels: [String] = [], touchedOnUpdate: Bool = false, lowercased: Bool = false) {
        self.name = name
        self.kind = kind
        self.type = type ?? kind.rawValue
        self.nullable = nullable
        self.labels = labels
        self.touchedOnUpdate = touchedOnUpdate
        self.lowercased = lowercased
    }

    /// The column of an app relation, with Soar's conventions for the push tables.
    public init(_ attribute: Attribute, relation: String, enums: [String: [String]]) {
        let kind: Kind = switch attribute.type {
        case "uuid": .uuid
        case "int2", "int4", "int8": .integer
        case "bool": .boolean
        case "numeric": .numeric
        case "float4", "float8": .double
        case "timestamptz": .timestamptz
        case "timestamp": .timestamp
        case "date": .date
        case "json", "jsonb": .jsonb
        case "bytea": .bytea
        default: enums[attribute.type] != nil ? .enumeration : .text
        }
        self.init(
            attribute.name, kind, type: attribute.type, nullable: attribute.nullable, labels: enums[attribute.type] ?? [],
            touchedOnUpdate: attribute.name == "updated_at" && kind == .timestamptz,
            lowercased: relation == "device_tokens" && attribute.name == "token")
    }

    /// The type as Postgres names it in messages (`bigint`, not `int8`).
    public var typeName: String {
        ["int8": "bigint", "int4": "integer", "int2": "smallint", "bool": "boolean", "float8": "double precision", "float4": "real",
         "timestamptz": "timestamp with time zone", "timestamp": "timestamp without time zone", "varchar": "character varying"][type] ?? type
    }

    /// `text` in the one form the column stores and compares.
    public func canonical(_ text: String) -> String { lowercased ? text.lowercased() : text }
}
