import Foundation
import SoarCore
import SoarCrypto
import SoarImages
import SoarStore

/// Supabase Storage without HTTP: buckets and objects as rows of `storage.buckets` and
/// `storage.objects` read and written as the caller (so the app's policies decide, on either
/// store), and their bytes as files (``ObjectFiles``).
///
/// A write puts the bytes in place under a new version first, then writes the row; a failed
/// write removes the version again, and a crash between the two leaves a file no row names,
/// which ``sweep(olderThan:)`` removes. A row is never served without its file.
public final class StorageService: Sendable {
    public struct Limits: Sendable {
        /// Bytes an object may have at most, whatever its bucket says (Supabase's 50 MB).
        public var fileSizeLimit: Int64 = 50_000_000
        /// Seconds a signed upload URL is good for.
        public var uploadURLLifetime = 7200

        public init() {}
    }

    let store: any DataStore
    public let files: ObjectFiles
    let renderer: ImageRenderer
    let limits: Limits
    /// Signs and checks signed URLs' tokens: a key derived from the JWT secret, so that a URL's
    /// token is never an access token the gateway takes (nor an access token a URL's).
    let secret: Data
    let now: @Sendable () -> Date

    public init(
        store: any DataStore, files: ObjectFiles, secret: Data, limits: Limits = Limits(), renderer: ImageRenderer = ImageRenderer(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.files = files
        self.renderer = renderer
        self.secret = (try? hmacSHA256(key: secret, message: Data("soar storage signed URLs".utf8))) ?? Data()
        self.limits = limits
        self.now = now
    }

    var buckets: Table { store.builtIn("storage.buckets") }
    var objects: Table { store.builtIn("storage.objects") }

    /// Removes the files a crash or a lost race left behind (see ``ObjectFiles/sweep(olderThan:now:referenced:)``).
    @discardableResult
    public func sweep(olderThan age: TimeInterval = 3600) throws(StorageError) -> Int {
        let rows = try run { () throws(StoreError) in try store.select(objects, Self.columns(["version"]), as: .service, counting: false).rows }
        let versions = Set(rows.compactMap { row -> String? in if case .text(let version) = row[objects.position(of: "version")!] { version } else { nil } })
        return files.sweep(olderThan: age, now: now(), referenced: versions.contains)
    }

    // MARK: helpers

    static func equal(_ column: String, _ value: String) -> RowQuery.Condition {
        .compare(column: column, op: .eq, operand: .value(.text(value)))
    }

    static func query(_ condition: RowQuery.Condition?, limit: Int? = nil) -> RowQuery {
        var query = RowQuery()
        query.condition = condition
        query.limit = limit
        return query
    }

    static func columns(_ names: [String]) -> RowQuery {
        var query = RowQuery()
        query.outputs = names.map { RowQuery.Output(column: $0, key: $0) }
        return query
    }

    /// Runs store work, its errors as Storage's.
    func run<T>(_ work: () throws(StoreError) -> T, duplicate: StorageError = .keyExists) throws(StorageError) -> T {
        do { return try work() } catch {
            switch error.code {
            case "42501": throw .rowSecurity
            case "23505": throw duplicate
            case "23503": throw .relatedMissing
            case "22P02", "23502", "23514", "22001": throw .invalidRequest(error.message)
            default: throw .internal(error.message)
            }
        }
    }

    func bucket(_ id: String, as access: Access) throws(StorageError) -> Bucket {
        let rows = try run { () throws(StoreError) in try store.select(buckets, Self.query(Self.equal("id", id), limit: 1), as: access, counting: false).rows }
        guard let row = rows.first else { throw .bucketNotFound }
        return Bucket(Record(row, buckets))
    }

    /// Removes a version replaced or removed, unless a row still names it (a move that took the
    /// row meanwhile): a version no row names is never named again.
    func release(_ version: String) {
        let table = objects
        guard let named = try? store.select(table, Self.query(Self.equal("version", version), limit: 1), as: .service, counting: false).rows,
            named.isEmpty
        else { return }
        files.remove(version)
    }

    func object(_ bucket: String, _ name: String, as access: Access, where extra: RowQuery.Condition? = nil) throws(StorageError) -> StoredObject? {
        let condition = RowQuery.Condition.all([Self.equal("bucket_id", bucket), Self.equal("name", name)] + [extra].compactMap { $0 })
        let table = objects
        let rows = try run { () throws(StoreError) in try store.select(table, Self.query(condition, limit: 1), as: access, counting: false).rows }
        return rows.first.map { StoredObject(Record($0, table), columns: table.columns.map(\.name)) }
    }
}

extension JSONValue {
    /// A member of an object (nil for anything else).
    subscript(_ key: String) -> JSONValue? { objectValue?[key] }
}
