import SoarCore
import SoarStorage
import SoarStore

/// A push's picture from storage: `image: "bucket/name"` becomes a signed URL of a render that
/// fits Apple's attachment limits (at most 1024 px a side, JPEG: well under 10 MB), which the
/// app's Notification Service Extension downloads without a key. The caller must be allowed to
/// read the object now; the URL stays good for `lifetime` seconds.
struct PushImages: Sendable {
    let storage: StorageService
    /// The API's URL as phones reach it.
    let baseURL: String
    let lifetime: Int

    static let attachment = ImageTransform(width: 1024, height: 1024, resize: .contain, quality: 80, format: .jpeg)

    func signedURL(_ path: String, as access: Access) throws(ServerError) -> String {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard let slash = trimmed.firstIndex(of: "/"), slash != trimmed.startIndex, trimmed.index(after: slash) != trimmed.endIndex else {
            throw .function(400, "invalid_request", "image must be a storage path, bucket/name (\(path.prefix(100)) is not)")
        }
        let (bucket, name) = (String(trimmed[..<slash]), String(trimmed[trimmed.index(after: slash)...]))
        do {
            let signed = try storage.signedURL(bucket: bucket, name: name, expiresIn: .int(lifetime), transform: Self.attachment, as: access)
            var base = baseURL
            while base.hasSuffix("/") { base.removeLast() }
            return base + "/storage/v1" + signed
        } catch {
            throw .function(error.status == 404 ? 404 : 400, error.status == 404 ? "image_not_found" : "invalid_image", "image \(path.prefix(200)): \(error.message)")
        }
    }
}
