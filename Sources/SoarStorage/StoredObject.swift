import Foundation
import SoarCore
import SoarStore

/// A row of `storage.objects`: an object's name, its current version (the file holding its
/// bytes) and what was recorded of them at upload.
public struct StoredObject: Sendable {
    public var id: String
    public var bucketID: String
    public var name: String
    public var owner: String?
    public var version: String?
    /// `{eTag, size, mimetype, cacheControl, lastModified, contentLength, httpStatusCode}`.
    public var metadata: [String: JSONValue]
    public var userMetadata: JSONValue
    public var createdAt: String
    public var updatedAt: String
    public var lastAccessedAt: String
    /// The row as the data API would answer it.
    let record: [String: JSONValue]

    init(_ record: Record, columns: [String]) {
        id = record.text("id") ?? ""
        bucketID = record.text("bucket_id") ?? ""
        name = record.text("name") ?? ""
        owner = record.text("owner")
        version = record.text("version")
        metadata = record["metadata"]?.objectValue ?? [:]
        userMetadata = record["user_metadata"] ?? .null
        createdAt = record.text("created_at") ?? ""
        updatedAt = record.text("updated_at") ?? ""
        lastAccessedAt = record.text("last_accessed_at") ?? ""
        self.record = Dictionary(uniqueKeysWithValues: columns.map { ($0, record[$0] ?? .null) })
    }

    public var size: Int64 { Int64(metadata["size"]?.intValue ?? 0) }
    public var mimeType: String { metadata["mimetype"]?.stringValue ?? "application/octet-stream" }
    public var cacheControl: String { metadata["cacheControl"]?.stringValue ?? "no-cache" }
    /// Quoted, as HTTP writes it.
    public var eTag: String { metadata["eTag"]?.stringValue ?? "\"\(version ?? id)\"" }
    public var lastModified: Date { Timestamp.parse(updatedAt) ?? Date(timeIntervalSince1970: 0) }

    /// `/object/info`'s answer, keys in Supabase's order of meaning.
    public var info: JSONValue {
        [
            "id": .string(id), "name": .string(name), "version": .string(version ?? ""), "bucket_id": .string(bucketID),
            "size": metadata["size"] ?? .null, "content_type": metadata["mimetype"] ?? .null,
            "cache_control": metadata["cacheControl"] ?? .null, "etag": metadata["eTag"] ?? .null, "metadata": userMetadata,
            "last_modified": .string(Timestamp.iso(updatedAt)), "created_at": .string(Timestamp.iso(createdAt)),
        ]
    }

    /// The row with timestamps as Supabase writes them and a null owner, owner_id or version as "".
    var json: [String: JSONValue] {
        var object = record
        for key in ["created_at", "updated_at", "last_accessed_at"] { if let text = object[key]?.stringValue { object[key] = .string(Timestamp.iso(text)) } }
        for key in ["owner", "owner_id", "version"] where object[key] == .null { object[key] = "" }
        return object
    }
}
