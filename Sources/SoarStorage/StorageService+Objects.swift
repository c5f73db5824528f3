import Foundation
import SoarCore
import SoarStore

/// Reading, listing, moving, copying and removing objects.
extension StorageService {
    /// How a read reaches an object: `/object/public/...`, `/object/authenticated/...` (or plain
    /// `/object/...`), or a signed URL that was checked already.
    public enum Route: Sendable {
        case `public`, authenticated, signed
    }

    /// The object a read names, as `access` may see it: a public bucket's objects are read past
    /// the policies, others under them. One query when the object is there; the bucket is looked
    /// at only to say why not (or, on the authenticated route, whether to read past the policies).
    ///
    /// - Throws: ``StorageError/bucketNotFound`` (a public route to a private bucket too),
    ///   ``StorageError/objectNotFound``.
    public func find(bucket id: String, name: String, route: Route, as access: Access) throws(StorageError) -> StoredObject {
        guard Self.validBucketName(id) else { throw .bucketNameInvalid }
        try Self.requireValidKey(name)
        switch route {
        case .public:
            let inPublicBucket = RowQuery.Condition.related(
                relation: "storage.buckets", join: [RowQuery.Join(related: "id", own: "bucket_id")],
                condition: .compare(column: "public", op: .is, operand: .isTrue))
            if let object = try object(id, name, as: .service, where: inPublicBucket) { return object }
            guard try bucket(id, as: .service).isPublic else { throw .bucketNotFound }
        case .authenticated:
            if let object = try object(id, name, as: access) { return object }
            if try bucket(id, as: .service).isPublic, let object = try object(id, name, as: .service) { return object }
        case .signed:
            if let object = try object(id, name, as: .service) { return object }
            _ = try bucket(id, as: .service)
        }
        throw .objectNotFound
    }

    /// The object's bytes: an open file and its size.
    ///
    /// - Throws: ``StorageError/missingBytes`` when the file is gone (never an empty answer).
    public func open(_ object: StoredObject) throws(StorageError) -> (descriptor: Int32, size: Int64, contentType: String) {
        guard let version = object.version, let opened = files.open(version) else { throw .missingBytes }
        return (opened.descriptor, opened.size, object.mimeType)
    }


    /// `/object/list`: the next level under `prefix`, folders as rows of a name only.
    public func list(bucket id: String, _ body: JSONValue, as access: Access) throws(StorageError) -> JSONValue {
        guard var prefix = body["prefix"]?.stringValue else { throw .invalidRequest("body must have required property 'prefix'") }
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        let search = body["search"]?.stringValue ?? ""
        let limit = min(max(body["limit"]?.intValue ?? 100, 1), 1500)
        let offset = max(body["offset"]?.intValue ?? 0, 0)
        let sort = body["sortBy"]?["column"]?.stringValue ?? "name"
        guard ["name", "updated_at", "created_at", "last_accessed_at"].contains(sort) else { throw .invalidRequest("body/sortBy/column must be equal to one of the allowed values") }
        let descending = body["sortBy"]?["order"]?.stringValue?.lowercased() == "desc"
        let condition = RowQuery.Condition.all([
            Self.equal("bucket_id", id),
            .compare(column: "name", op: .ilike, operand: .value(.text(Self.escapedLike(prefix + search) + "%"))),
        ])
        let table = objects
        let rows = try run { () throws(StoreError) in try store.select(table, Self.query(condition), as: access, counting: false).rows }
        var folders = Set<String>()
        var entries: [(name: String, folder: Bool, object: StoredObject?)] = []
        for row in rows {
            let object = StoredObject(Record(row, table), columns: [])
            let rest = object.name.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/") {
                let folder = String(rest[..<slash])
                if folders.insert(folder).inserted { entries.append((folder, true, nil)) }
            } else {
                entries.append((String(rest), false, object))
            }
        }
        func key(_ entry: (name: String, folder: Bool, object: StoredObject?)) -> String {
            switch sort {
            case "updated_at": entry.object?.updatedAt ?? ""
            case "created_at": entry.object?.createdAt ?? ""
            case "last_accessed_at": entry.object?.lastAccessedAt ?? ""
            default: entry.name.lowercased()
            }
        }
        entries.sort { a, b in
            if sort != "name", a.folder != b.folder { return a.folder }
            if a.folder && b.folder && sort != "name" { return a.name < b.name }
            return descending ? key(a) > key(b) : key(a) < key(b)
        }
        let page = entries.dropFirst(offset).prefix(limit)
        return .array(page.map { entry in
            guard let object = entry.object else {
                return ["name": .string(entry.name), "id": .null, "updated_at": .null, "created_at": .null, "last_accessed_at": .null, "metadata": .null]
            }
            return [
                "name": .string(entry.name), "id": .string(object.id), "updated_at": .string(Timestamp.iso(object.updatedAt)),
                "created_at": .string(Timestamp.iso(object.createdAt)), "last_accessed_at": .string(Timestamp.iso(object.lastAccessedAt)),
                "metadata": .object(object.metadata),
            ]
        })
    }

    /// `DELETE /object/<bucket>` with `{"prefixes": [...]}`: exact keys; those missing or hidden
    /// by the policies are skipped. Returns the rows removed.
    public func remove(bucket id: String, _ body: JSONValue, as access: Access) throws(StorageError) -> JSONValue {
        guard let names = body["prefixes"]?.arrayValue?.compactMap(\.stringValue), !names.isEmpty else {
            throw .invalidRequest("body/prefixes must NOT have fewer than 1 items")
        }
        guard names.count <= 1000 else { throw .invalidRequest("body/prefixes must NOT have more than 1000 items") }
        let condition = RowQuery.Condition.all([Self.equal("bucket_id", id), .compare(column: "name", op: .in, operand: .list(names.map(SQLValue.text)))])
        let table = objects
        let removed = try run { () throws(StoreError) in try store.delete(table, where: condition, as: access) }
        let objects = removed.map { StoredObject(Record($0, table), columns: table.columns.map(\.name)) }
        for object in objects { if let version = object.version { release(version) } }
        return .array(objects.map { .object($0.json) })
    }

    /// `DELETE /object/<bucket>/<name>`.
    public func removeOne(bucket id: String, name: String, as access: Access) throws(StorageError) -> JSONValue {
        guard try object(id, name, as: .service) != nil else { throw .objectNotFound }
        let removed = try remove(bucket: id, ["prefixes": [.string(name)]], as: access)
        guard removed.arrayValue?.isEmpty == false else { throw .accessDenied("Access denied") }
        return ["message": "Successfully deleted"]
    }

    /// `/object/move`: the row renamed as the caller (its UPDATE policies see the new name); the
    /// bytes stay where they are.
    public func move(_ body: JSONValue, as access: Access) throws(StorageError) -> JSONValue {
        let (bucket, source, target, targetBucket) = try transfer(body)
        guard try object(bucket, source, as: access) != nil else { throw .objectNotFound }
        if try object(targetBucket, target, as: .service) != nil { throw .resourceExists }
        let table = objects
        let values: RowValues = ["bucket_id": .text(targetBucket), "name": .text(target), "updated_at": .text(Timestamp.postgres(now()))]
        let condition = RowQuery.Condition.all([Self.equal("bucket_id", bucket), Self.equal("name", source)])
        let moved = try run({ () throws(StoreError) in try store.update(table, set: values, where: condition, as: access, single: false, returning: false) }, duplicate: .resourceExists)
        guard !moved.isEmpty else { throw .objectNotFound }
        return ["message": "Successfully moved"]
    }

    /// `/object/copy`: a new row (under the caller's INSERT policies) naming a hard link to the
    /// source's bytes.
    public func copy(_ body: JSONValue, upsert: Bool, as access: Access) throws(StorageError) -> JSONValue {
        let (bucket, source, target, targetBucket) = try transfer(body)
        guard let original = try object(bucket, source, as: access), let sourceVersion = original.version else { throw .objectNotFound }
        // The destination's limits hold for a copy as for an upload.
        let destination = try self.bucket(targetBucket, as: .service)
        guard destination.allows(mimeType: original.mimeType) else { throw .invalidMimeType(original.mimeType) }
        guard original.size <= min(limits.fileSizeLimit, destination.fileSizeLimit ?? .max) else { throw .entityTooLarge }
        let previous = upsert ? try object(targetBucket, target, as: .service) : nil
        let version = RandomUUID.lowercase()
        try files.link(sourceVersion, to: version)
        let time = Timestamp.postgres(now())
        let values: RowValues = [
            "bucket_id": .text(targetBucket), "name": .text(target), "version": .text(version),
            "metadata": .text(JSONValue.object(original.metadata).jsonText), "last_accessed_at": .text(time),
            "user_metadata": original.userMetadata == .null ? .null : .text(original.userMetadata.jsonText),
        ]
        try writeRow(values, version: version, owner: access.userID, upsert: upsert, replacing: previous, as: access)
        guard let copied = try object(targetBucket, target, as: .service) else { throw .objectNotFound }
        var answer = copied.json
        answer["Id"] = .string(copied.id)
        answer["Key"] = .string(targetBucket + "/" + target)
        return .object(answer)
    }

    private func transfer(_ body: JSONValue) throws(StorageError) -> (String, String, String, String) {
        guard let bucket = body["bucketId"]?.stringValue else { throw .invalidRequest("body must have required property 'bucketId'") }
        guard let source = body["sourceKey"]?.stringValue else { throw .invalidRequest("body must have required property 'sourceKey'") }
        guard let target = body["destinationKey"]?.stringValue else { throw .invalidRequest("body must have required property 'destinationKey'") }
        let targetBucket = body["destinationBucket"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? bucket
        guard Self.validBucketName(bucket), Self.validBucketName(targetBucket) else { throw .bucketNameInvalid }
        try Self.requireValidKey(target)
        return (bucket, source, target, targetBucket)
    }
}
