import Foundation
import SoarCore

/// Where the profile screen keeps a user's avatar image; the answer is the URL `avatar_url` takes.
public protocol AvatarStoring: Sendable {
    func store(_ image: Data, contentType: String, userId: UUID) async throws(AppError) -> URL
}

/// Avatars in Supabase Storage, as the starter's `avatars` bucket lays them out: one object per
/// user under a folder named by their id (the only folder its policies let them write), replaced
/// on each change; the public URL carries the time of the change so caches fetch the new image.
public struct StorageAvatarStore: AvatarStoring {
    private let bucket: StorageBucket
    private let now: @Sendable () -> Date

    public init(client: Soar, bucket: String = "avatars", now: @escaping @Sendable () -> Date = Date.init) {
        self.bucket = client.storage.from(bucket)
        self.now = now
    }

    public func store(_ image: Data, contentType: String, userId: UUID) async throws(AppError) -> URL {
        let suffix = ["image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/heic": "heic", "image/gif": "gif"][contentType.lowercased()] ?? "img"
        let path = "\(userId.uuidString.lowercased())/avatar.\(suffix)"
        _ = try await bucket.upload(path, data: image, options: FileOptions(contentType: contentType, upsert: true))
        var components = URLComponents(url: bucket.getPublicURL(path: path), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "v", value: String(Int(now().timeIntervalSince1970)))]
        return components.url!
    }
}
