/// Postgres's types as the data API and SQLite handle them.
public enum TypeMapping {
    /// A boolean's text as Postgres reads it (`t`, `yes`, `on`…, any case); nil for other text.
    public static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "t", "yes", "y", "on", "1": true
        case "false", "f", "no", "n", "off", "0": false
        default: nil
        }
    }

    /// An enum's value in its type's order: `CASE value WHEN 'label' THEN 0 … END` (SQLite keeps
    /// the label's text, which would order and compare as text).
    public static func enumRank(_ value: String, labels: [String]) -> String {
        "CASE \(value) " + labels.enumerated().map { "WHEN '\($1.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''"))' THEN \($0)" }
            .joined(separator: " ") + " END"
    }

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
