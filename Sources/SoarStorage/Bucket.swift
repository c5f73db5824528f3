import Foundation
import SoarCore
import SoarStore

/// A row of `storage.buckets`.
public struct Bucket: Sendable, Equatable {
    public var id: String
    public var name: String
    public var owner: String?
    public var isPublic: Bool
    /// Bytes an object may have at most (nil: the server's limit).
    public var fileSizeLimit: Int64?
    /// `image/png`, `image/*`; nil: any.
    public var allowedMimeTypes: [String]?
    public var createdAt: String
    public var updatedAt: String

    init(_ record: Record) {
        id = record.text("id") ?? ""
        name = record.text("name") ?? ""
        owner = record.text("owner")
        isPublic = record["public"] == .bool(true)
        fileSizeLimit = record["file_size_limit"]?.intValue.map(Int64.init)
        allowedMimeTypes = record.text("allowed_mime_types").map(PostgresArray.parse)
        createdAt = record.text("created_at") ?? ""
        updatedAt = record.text("updated_at") ?? ""
    }

    /// As Supabase answers it (`owner` is "" when none: supabase-swift's is not optional).
    public func json(withType: Bool) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "owner": .string(owner ?? ""), "public": .bool(isPublic),
            "file_size_limit": fileSizeLimit.map { .int(Int($0)) } ?? .null,
            "allowed_mime_types": allowedMimeTypes.map { .array($0.map(JSONValue.string)) } ?? .null,
            "created_at": .string(Timestamp.iso(createdAt)), "updated_at": .string(Timestamp.iso(updatedAt)),
        ]
        if withType { object["type"] = "STANDARD" }
        return .object(object)
    }

    /// Whether an object of `type` may be stored: `type/subtype` exactly, or `type/*`.
    public func allows(mimeType type: String) -> Bool {
        guard let allowed = allowedMimeTypes, !allowed.isEmpty else { return true }
        let essence = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard essence.contains("/") else { return false }
        return allowed.contains { entry in
            let entry = entry.lowercased()
            if entry.hasSuffix("/*") { return essence.hasPrefix(entry.dropLast()) }
            return entry == essence || entry == type.lowercased()
        }
    }
}

/// A stored row by column name, as JSON values (what the data API would answer).
struct Record {
    private var values: [String: JSONValue]

    init(_ row: StoredRow, _ table: Table) {
        var values: [String: JSONValue] = [:]
        for (column, value) in zip(table.columns, row) { values[column.name] = column.json(value) }
        self.values = values
    }

    subscript(_ name: String) -> JSONValue? { values[name] }

    func text(_ name: String) -> String? { values[name]?.stringValue }
}

/// Postgres's array literal (`{image/png,"a b"}`): how `allowed_mime_types` is written on both stores.
public enum PostgresArray {
    public static func parse(_ text: String) -> [String] {
        guard text.hasPrefix("{"), text.hasSuffix("}") else { return [] }
        var items: [String] = [], current = "", quoted = false, escaped = false, wasQuoted = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                wasQuoted = true
            } else if character == ",", !quoted {
                items.append(current)
                current = ""
                wasQuoted = false
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty || wasQuoted || !items.isEmpty { items.append(current) }
        return items
    }

    static func literal(_ items: [String]) -> String {
        "{" + items.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }
}

extension Timestamp {
    /// A stored timestamp as JavaScript's `toISOString()` writes it (`2024-05-01T12:34:56.789Z`),
    /// as Supabase Storage answers.
    static func iso(_ stored: String) -> String {
        parse(stored).map(format) ?? stored
    }
}
