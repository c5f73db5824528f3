import Foundation
import SoarCore
import SoarStore

/// Uploads: checked once the headers are in (bucket, key, declared size, a raw body's type), the
/// body streamed to a temporary file, then put in place and its row written as the caller.
extension StorageService {
    /// An upload whose body is on its way.
    public final class PendingUpload: Sendable {
        public let bucket: Bucket
        public let name: String
        public let body: UploadBody

        init(bucket: Bucket, name: String, body: UploadBody) {
            self.bucket = bucket
            self.name = name
            self.body = body
        }
    }

    /// Room a form's boundaries and fields take beside its file.
    static let formAllowance: Int64 = 64 << 10

    /// Checks what the headers tell before any of the body is read.
    ///
    /// - Parameter length: the declared `Content-Length`, when there is one.
    /// - Throws: ``StorageError``: an invalid key, no such bucket, a declared size over the limit
    ///   (413), a raw body's type the bucket refuses (415).
    public func beginUpload(
        bucket id: String, name: String, length: Int64?, contentType: String?, cacheControl: String?, metadata: String?
    ) throws(StorageError) -> PendingUpload {
        guard Self.validBucketName(id) else { throw .bucketNameInvalid }
        try Self.requireValidKey(name)
        let bucket = try bucket(id, as: .service)
        let limit = min(limits.fileSizeLimit, bucket.fileSizeLimit ?? .max)
        let form = contentType.map { $0.lowercased().hasPrefix("multipart/form-data") } ?? false
        if let length, length > limit + (form ? Self.formAllowance : 0) { throw .entityTooLarge }
        if !form, !name.hasSuffix(".emptyFolderPlaceholder"), let type = contentType ?? Optional("application/octet-stream"), !bucket.allows(mimeType: type) {
            throw .invalidMimeType(type)
        }
        let body = UploadBody(file: try files.begin(limit: limit), contentType: contentType, cacheControl: cacheControl, metadataHeader: metadata)
        if form, !body.isForm { throw .invalidRequest("the multipart form has no boundary") }
        return PendingUpload(bucket: bucket, name: name, body: body)
    }

    /// Puts the uploaded bytes in place and writes the object's row as `access` (its INSERT
    /// policies; with `upsert`, its UPDATE policies for an existing object too).
    ///
    /// - Parameter owner: the user recorded as the owner (a signed upload URL's signer).
    /// - Returns: the object's id and `bucket/name` key.
    public func finishUpload(_ upload: PendingUpload, upsert: Bool, as access: Access, owner: String? = nil) throws(StorageError) -> (id: String, key: String) {
        let body = upload.body
        defer { body.file.discard() }
        let (mimeType, cacheControl, userMetadata) = try body.described()
        let placeholder = upload.name.hasSuffix(".emptyFolderPlaceholder")
        guard placeholder ? body.file.size == 0 : upload.bucket.allows(mimeType: mimeType) else {
            throw placeholder ? .entityTooLarge : .invalidMimeType(mimeType)
        }
        let previous = upsert ? try object(upload.bucket.id, upload.name, as: .service) : nil
        let version = RandomUUID.lowercase()
        try files.keep(body.file, as: version)
        let time = Timestamp.postgres(now())
        let metadata: JSONValue = [
            "eTag": .string("\"\(body.file.checksum)\""), "size": .int(Int(body.file.size)), "mimetype": .string(mimeType),
            "cacheControl": .string(cacheControl), "lastModified": .string(Timestamp.iso(time)), "contentLength": .int(Int(body.file.size)),
            "httpStatusCode": 200,
        ]
        let values: RowValues = [
            "bucket_id": .text(upload.bucket.id), "name": .text(upload.name), "version": .text(version),
            "metadata": .text(metadata.jsonText), "user_metadata": userMetadata == .null ? .null : .text(userMetadata.jsonText),
            "last_accessed_at": .text(time),
        ]
        try writeRow(values, version: version, owner: owner ?? access.userID, upsert: upsert, replacing: previous, as: access)
        // Written: a failure to read its id back is not the upload's.
        let id = (try? object(upload.bucket.id, upload.name, as: .service))??.id ?? ""
        return (id, upload.bucket.id + "/" + upload.name)
    }

    /// Writes the row of a version just put in place, as `access` (its INSERT policies; with
    /// `upsert`, its UPDATE ones too), owned by `owner`: a refused row takes its version's file
    /// with it, and the version it replaced goes once no row names it.
    func writeRow(_ values: RowValues, version: String, owner: String?, upsert: Bool, replacing previous: StoredObject?, as access: Access) throws(StorageError) {
        var values = values
        values["owner"] = owner.flatMap { RandomUUID.parse($0) != nil ? .text($0) : nil } ?? .null
        values["owner_id"] = owner.map(SQLValue.text) ?? .null
        let table = objects
        do {
            _ = try run { () throws(StoreError) in
                try store.insert(table, [values], onConflict: upsert ? .merge(on: ["bucket_id", "name"]) : nil, as: access, single: false, returning: false)
            }
        } catch {
            files.remove(version)
            throw error
        }
        if let old = previous?.version, old != version { release(old) }
    }

    /// A key as Supabase Storage allows it: not empty, only its characters, no `.` or `..` part.
    static func requireValidKey(_ name: String) throws(StorageError) {
        // No empty part either: a path's `//` or a trailing `/` could never be read back by path.
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(keyCharacters.contains),
            !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { throw .invalidKey(name) }
    }
}
