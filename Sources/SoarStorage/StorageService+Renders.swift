import Foundation
import SoarCore
import SoarCrypto
import SoarImages

/// `/render/image/...`: an image resized and encoded by ``ImageRenderer``, the result kept beside
/// the object (a version never changes, so neither do its renders) and sent from that file.
extension StorageService {
    public func render(_ object: StoredObject, _ transform: ImageTransform) throws(StorageError) -> (descriptor: Int32, size: Int64, contentType: String) {
        guard let version = object.version else { throw .missingBytes }
        let (encoding, contentType) = Self.output(transform.format, sourceType: object.mimeType)
        let key = sha256(Data((transform.claim + "|" + contentType).utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        if let cached = files.openRender(version: version, key: key) { return (cached.descriptor, cached.size, contentType) }
        let fit: ImageRenderer.Fit = switch transform.resize {
        case .cover: .cover
        case .contain: .contain
        case .fill: .fill
        }
        let source = try files.location(of: version)
        let bytes: Data
        do throws(ImageRenderer.Failure) {
            bytes = try renderer.render(
                source, width: transform.width, height: transform.height, fit: fit, encoding: encoding, quality: transform.quality)
        } catch {
            if error.tooLarge { throw StorageError(status: 413, error: "Payload too large", code: "EntityTooLarge", message: error.reason) }
            throw StorageError(status: 400, error: "InvalidRequest", code: "InvalidRequest", message: error.reason)
        }
        let opened = try files.keepRender(bytes, version: version, key: key)
        return (opened.descriptor, opened.size, contentType)
    }

    /// `origin` keeps the source's kind where it can: PNG and GIF as PNG, WebP as WebP, else JPEG.
    static func output(_ format: ImageTransform.Format, sourceType: String) -> (ImageRenderer.Encoding, String) {
        switch format {
        case .jpeg: return (.jpeg, "image/jpeg")
        case .png: return (.png, "image/png")
        case .webp: return (.webp, "image/webp")
        case .origin:
            switch sourceType.lowercased().split(separator: ";").first.map(String.init) ?? "" {
            case "image/png", "image/gif": return (.png, "image/png")
            case "image/webp": return (.webp, "image/webp")
            default: return (.jpeg, "image/jpeg")
            }
        }
    }
}
