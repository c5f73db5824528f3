/// Postgres's types as the data API and SQLite handle them.
public enum TypeMapping {
    /// The types a migration may use on SQLite (and their kin serial, bigserial, varchar…).
    public static let supported: Set<String> = [
        "uuid", "text", "varchar", "bpchar", "citext", "bool", "int2", "int4", "int8", "numeric", "float4", "float8",
        "timestamptz", "timestamp", "date", "json", "jsonb", "bytea",
    ]

    /// The type's catalog name from the parser's `names` (`pg_catalog.int8` -> `int8`).
    public static func postgresName(_ names: [String]) -> String {
        let name = names.last ?? "text"
        return ["serial": "int4", "serial4": "int4", "bigserial": "int8", "serial8": "int8", "smallserial": "int2",
                "integer": "int4", "int": "int4", "bigint": "int8", "smallint": "int2", "boolean": "bool",
                "real": "float4", "decimal": "numeric", "character varying": "varchar"][name] ?? name
    }

    /// Whether the name is a serial type (an identity column by another name).
    public static func isSerial(_ names: [String]) -> Bool {
        ["serial", "serial4", "bigserial", "serial8", "smallserial"].contains(names.last ?? "")
    }

    /// The column's storage class on SQLite: text for everything Postgres writes as text in JSON.
    public static func sqliteType(_ type: String) -> String {
        switch type {
        case "bool", "int2", "int4", "int8": "INTEGER"
        case "float4", "float8": "REAL"
        case "numeric": "NUMERIC"
        default: "TEXT"
        }
    }
}
