import Foundation
import SoarCore
import SoarStore

/// `/bucket`: buckets are rows of `storage.buckets`, read and written as the caller.
extension StorageService {
    public func listBuckets(limit: Int?, offset: Int?, search: String?, as access: Access) throws(StorageError) -> JSONValue {
        var query = Self.query(search.map { .compare(column: "name", op: .ilike, operand: .value(.text("%" + Self.escapedLike($0) + "%"))) })
        query.order = [RowQuery.Order(column: "name")]
        query.limit = limit
        query.offset = offset
        let table = buckets
        let rows = try run { () throws(StoreError) in try store.select(table, query, as: access, counting: false).rows }
        return .array(rows.map { Bucket(Record($0, table)).json(withType: true) })
    }

    public func getBucket(_ id: String, as access: Access) throws(StorageError) -> JSONValue {
        try bucket(id, as: access).json(withType: false)
    }

    /// - Returns: `{"name": ...}`, as Supabase answers.
    public func createBucket(_ body: JSONValue, as access: Access) throws(StorageError) -> JSONValue {
        guard let name = body["name"]?.stringValue ?? body["id"]?.stringValue else {
            throw .invalidRequest("body must have required property 'name'")
        }
        guard Self.validBucketName(name) else { throw .bucketNameInvalid }
        let id = body["id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? name
        guard Self.validBucketName(id) else { throw .bucketNameInvalid }
        var values = try settings(body)
        values["id"] = .text(id)
        values["name"] = .text(name)
        if let user = access.userID {
            values["owner"] = .text(user)
            values["owner_id"] = .text(user)
        }
        let table = buckets
        _ = try run({ () throws(StoreError) in try store.insert(table, [values], onConflict: nil, as: access, single: false, returning: false) }, duplicate: .bucketExists)
        return ["name": .string(name)]
    }

    public func updateBucket(_ id: String, _ body: JSONValue, as access: Access) throws(StorageError) -> JSONValue {
        var values = try settings(body)
        guard !values.isEmpty else { throw .invalidRequest("body must have at least one of public, file_size_limit, allowed_mime_types") }
        values["updated_at"] = .text(Timestamp.postgres(now()))
        let table = buckets
        let changed = try run { () throws(StoreError) in try store.update(table, set: values, where: Self.equal("id", id), as: access, single: false, returning: false) }
        guard !changed.isEmpty else { throw .bucketNotFound }
        return ["message": "Successfully updated"]
    }

    /// Removes every object of the bucket (service role only, as on Supabase), at once.
    public func emptyBucket(_ id: String, as access: Access) throws(StorageError) -> JSONValue {
        guard access.role == .serviceRole else { throw .accessDenied("Access denied: Invalid role") }
        _ = try bucket(id, as: .service)
        let table = objects
        let removed = try run { () throws(StoreError) in try store.delete(table, where: Self.equal("bucket_id", id), as: .service) }
        for row in removed { if let version = StoredObject(Record(row, table), columns: []).version { release(version) } }
        return ["message": "Successfully emptied"]
    }

    public func deleteBucket(_ id: String, as access: Access) throws(StorageError) -> JSONValue {
        // A bucket the caller cannot see is not there for them: nothing said of its objects.
        _ = try bucket(id, as: access)
        let table = objects
        let inside = try run { () throws(StoreError) in try store.select(table, Self.query(Self.equal("bucket_id", id), limit: 1), as: .service, counting: false).rows }
        guard inside.isEmpty else { throw .bucketNotEmpty }
        let bucketTable = buckets
        let removed = try run { () throws(StoreError) in try store.delete(bucketTable, where: Self.equal("id", id), as: access, single: false) }
        guard !removed.isEmpty else { throw .bucketNotFound }
        return ["message": "Successfully deleted"]
    }

    /// `public`, `file_size_limit` (bytes, or `"20MB"`), `allowed_mime_types` from a request body.
    private func settings(_ body: JSONValue) throws(StorageError) -> RowValues {
        var values: RowValues = [:]
        if let flag = body["public"] {
            guard let value = flag.boolValue ?? (flag.stringValue.flatMap { ["true": true, "false": false][$0] }) else { throw .invalidRequest("body/public must be boolean") }
            values["public"] = .integer(value ? 1 : 0)
        }
        if let limit = body["file_size_limit"] {
            if limit == .null {
                values["file_size_limit"] = .null
            } else {
                guard let bytes = limit.intValue.map(Int64.init) ?? limit.stringValue.flatMap(Self.size), bytes >= 0 else {
                    throw StorageError(status: 400, error: "InvalidRequest", code: "InvalidRequest", message: "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")
                }
                guard bytes <= limits.fileSizeLimit else { throw .entityTooLarge }
                values["file_size_limit"] = .integer(bytes)
            }
        }
        if let types = body["allowed_mime_types"] {
            if types == .null {
                values["allowed_mime_types"] = .null
            } else {
                guard let list = types.arrayValue?.compactMap(\.stringValue) else { throw .invalidRequest("body/allowed_mime_types must be array") }
                for type in list where !Self.validMimeEntry(type) { throw .invalidMimeType(type) }
                values["allowed_mime_types"] = .text(PostgresArray.literal(list.filter { !$0.isEmpty }))
            }
        }
        return values
    }

    /// `20MB`, `1.5GB`, `30KB`, `3B` (decimal units) or plain digits.
    static func size(_ text: String) -> Int64? {
        if let bytes = Int64(text) { return bytes }
        let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
        for (unit, scale) in [("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0)] where upper.hasSuffix(unit) {
            guard let number = Double(upper.dropLast(unit.count)), number >= 0, number.isFinite else { return nil }
            return Int64(number * scale)
        }
        return nil
    }

    static func validMimeEntry(_ type: String) -> Bool {
        guard !type.isEmpty else { return true }
        guard type.utf8.count <= 1000 else { return false }
        if type.hasSuffix("*") { return true }
        let essence = type.split(separator: ";").first ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && !$0.contains(" ") }
    }

    /// The characters Supabase allows in a key, without `/`; 1 to 100 of them.
    static func validBucketName(_ name: String) -> Bool {
        (1...100).contains(name.count) && name.trimmingCharacters(in: .whitespaces) == name
            && name.unicodeScalars.allSatisfy { $0 != "/" && keyCharacters.contains($0) }
    }

    /// Letters, digits and `_/!.*'() &$=@;:+,?-`, as Supabase Storage's key rule.
    static let keyCharacters: Set<Unicode.Scalar> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/!.*'() &$=@;:+,?-".unicodeScalars)

    static func escapedLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}
