internal import CVips
import Foundation

/// Image resizing and encoding through libvips (the one type that touches it).
///
/// The input is checked before any pixel is decoded: its size in bytes, a loader of a plain raster
/// format (JPEG, PNG, WebP, GIF, HEIF; no SVG, PDF or others that run more code), and its pixel
/// count from the header, so a small file that would decode to a huge image (a decompression
/// bomb) is refused without being decoded.
public struct ImageRenderer: Sendable {
    public struct Limits: Sendable {
        /// Bytes an image may have to be rendered (Supabase's: 25 MB).
        public var maxBytes: Int64 = 25_000_000
        /// Pixels (width × height) an image may decode to.
        public var maxPixels = 50_000_000

        public init() {}
    }

    public enum Fit: Sendable {
        /// Fill the box, cropping the centre.
        case cover
        /// Fit inside the box.
        case contain
        /// Stretch to the box.
        case fill
    }

    public enum Encoding: Int32, Sendable {
        case jpeg = 0, png = 1, webp = 2
    }

    public struct Failure: Error, Sendable, Equatable {
        /// The image is over a limit (bytes or pixels), as opposed to not one Soar renders.
        public let tooLarge: Bool
        public let reason: String
    }

    public let limits: Limits
    private static let started: Bool = CVips_start() == 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Whether libvips runs code it compiles at run time (ORC): never once started, since
    /// Debian 12's liborc corrupts the heap when renders run side by side (see `CVips_start`).
    public static var compilesCode: Bool {
        _ = started
        return CVips_compiles_code() != 0
    }

    /// The image at `path` resized into `width` × `height` (either nil: the image's proportions
    /// decide it; both nil: its own size), encoded.
    public func render(_ path: String, width: Int?, height: Int?, fit: Fit, encoding: Encoding, quality: Int) throws(Failure) -> Data {
        guard Self.started else { throw Failure(tooLarge: false, reason: "libvips did not start") }
        var status = stat()
        guard stat(path, &status) == 0 else { throw Failure(tooLarge: false, reason: "the image's file is missing") }
        guard Int64(status.st_size) <= limits.maxBytes else { throw Failure(tooLarge: true, reason: "The image is over \(limits.maxBytes) bytes") }
        guard let loader = CVips_loader(path).map({ String(cString: $0) }),
            ["jpeg", "png", "webp", "gif", "heif"].contains(where: { loader.lowercased().contains($0) })
        else { throw Self.unsupported }
        guard let header = CVips_header(path) else { throw Self.failed() }
        let (imageWidth, imageHeight) = (Int(vips_image_get_width(header)), Int(vips_image_get_height(header)))
        CVips_unref(header)
        guard imageWidth > 0, imageHeight > 0, imageWidth <= 100_000, imageHeight <= 100_000, imageWidth * imageHeight <= limits.maxPixels else {
            throw Failure(tooLarge: true, reason: "The image is over \(limits.maxPixels) pixels")
        }
        // One side given: the other follows the image's proportions (a box as tall as need be).
        let boxWidth = width ?? (height == nil ? imageWidth : 10_000_000)
        let boxHeight = height ?? (width == nil ? imageHeight : 10_000_000)
        var mode: Int32 = switch fit {
        case .cover: 0
        case .contain: 1
        case .fill: 2
        }
        if width == nil || height == nil { mode = 1 }
        var image: UnsafeMutablePointer<VipsImage>?
        guard CVips_thumbnail(path, &image, Int32(boxWidth), Int32(boxHeight), mode) == 0, let image else { throw Self.failed() }
        defer { CVips_unref(image) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard CVips_save(image, encoding.rawValue, Int32(quality), &buffer, &length) == 0, let buffer else { throw Self.failed() }
        defer { CVips_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    private static let unsupported = Failure(tooLarge: false, reason: "The source image is invalid or unsupported for rendering")

    private static func failed() -> Failure {
        vips_error_clear()
        return unsupported
    }
}
