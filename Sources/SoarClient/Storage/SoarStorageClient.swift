import Foundation
import SoarCore

/// Supabase Storage as the signed-in user, in supabase-swift's shape:
/// `client.storage.from("avatars").upload(path, data: png)`.
public struct SoarStorageClient: Sendable {
    let backend: Backend
    let auth: SoarAuthClient

    /// A bucket's objects.
    public func from(_ bucket: String) -> StorageBucket {
        StorageBucket(id: bucket, backend: backend, auth: auth)
    }
}

/// How an upload is stored: supabase-swift's `FileOptions`.
public struct FileOptions: Sendable {
    /// Seconds caches may keep it (`Cache-Control: max-age=`).
    public var cacheControl: String
    /// Its type; `application/octet-stream` when nil.
    public var contentType: String?
    /// Replace an object already at that path (its UPDATE policies must allow it).
    public var upsert: Bool

    public init(cacheControl: String = "3600", contentType: String? = nil, upsert: Bool = false) {
        self.cacheControl = cacheControl
        self.contentType = contentType
        self.upsert = upsert
    }
}

/// An image's render (`/render/image/...`): supabase-swift's `TransformOptions`.
public struct TransformOptions: Sendable, Equatable {
    public var width: Int?
    public var height: Int?
    /// `cover` (default), `contain` or `fill`.
    public var resize: String?
    /// 20 to 100.
    public var quality: Int?
    /// `origin`, `webp`, `jpeg` or `png`.
    public var format: String?

    public init(width: Int? = nil, height: Int? = nil, resize: String? = nil, quality: Int? = nil, format: String? = nil) {
        self.width = width
        self.height = height
        self.resize = resize
        self.quality = quality
        self.format = format
    }

    var queryItems: [URLQueryItem] {
        [
            width.map { URLQueryItem(name: "width", value: String($0)) }, height.map { URLQueryItem(name: "height", value: String($0)) },
            resize.map { URLQueryItem(name: "resize", value: $0) }, quality.map { URLQueryItem(name: "quality", value: String($0)) },
            format.map { URLQueryItem(name: "format", value: $0) },
        ].compactMap { $0 }
    }

    var json: JSONValue {
        .object(Dictionary(uniqueKeysWithValues: queryItems.map { ($0.name, $0.value.flatMap(Int.init).map(JSONValue.int) ?? .string($0.value ?? "")) }))
    }
}

/// What an upload answers: the object's id and where it is.
public struct FileUploadResponse: Sendable, Equatable {
    public let id: String
    /// The path inside the bucket.
    public let path: String
    /// `bucket/path`.
    public let fullPath: String
}

/// An object (or, with a nil `id`, a folder) as a listing shows it.
public struct FileObject: Sendable, Decodable, Equatable {
    public let name: String
    public let id: String?
    public let updatedAt: String?
    public let createdAt: String?
    public let metadata: JSONValue?

    enum CodingKeys: String, CodingKey {
        case name, id, metadata
        case updatedAt = "updated_at"
        case createdAt = "created_at"
    }
}
