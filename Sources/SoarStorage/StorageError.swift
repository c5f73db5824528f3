/// A Storage API failure as Supabase Storage reports it: a logical status, the legacy `error`
/// label clients match on, a `code`, and a message.
///
/// Supabase sends every client error as HTTP 400 with the logical status in the body's
/// `statusCode`, and server faults as 500; ``httpStatus`` follows it so the clients behave alike.
public struct StorageError: Error, Sendable, Equatable {
    public let status: Int
    public let error: String
    public let code: String
    public let message: String
    /// A 416's `Content-Range`.
    public var contentRange: String?

    public init(status: Int, error: String, code: String, message: String) {
        self.status = status
        self.error = error
        self.code = code
        self.message = message
    }

    /// What travels as the HTTP status: 500 and 416 as themselves, 403 for a refused empty, else 400.
    public var httpStatus: Int {
        switch status {
        case 500..., 416: status
        default: code == "AccessDenied" && message.hasPrefix("Access denied: ") ? 403 : 400
        }
    }

    public static let bucketNotFound = StorageError(status: 404, error: "Bucket not found", code: "NoSuchBucket", message: "Bucket not found")
    public static let objectNotFound = StorageError(status: 404, error: "not_found", code: "NoSuchKey", message: "Object not found")
    /// A row whose bytes are gone: never served as an empty object.
    public static let missingBytes = StorageError(status: 404, error: "Not found", code: "NoSuchKey", message: "The resource was not found")
    public static let relatedMissing = StorageError(status: 404, error: "InvalidRequest", code: "InvalidRequest", message: "The related resource does not exist")
    public static let keyExists = StorageError(status: 409, error: "Duplicate", code: "KeyAlreadyExists", message: "The resource already exists")
    public static let bucketExists = StorageError(status: 409, error: "Duplicate", code: "BucketAlreadyExists", message: "The resource already exists")
    public static let resourceExists = StorageError(status: 409, error: "Duplicate", code: "ResourceAlreadyExists", message: "The resource already exists")
    public static let bucketNotEmpty = StorageError(
        status: 409, error: "ResourceNotEmpty", code: "ResourceNotEmpty", message: "The bucket you tried to delete is not empty")
    public static let entityTooLarge = StorageError(
        status: 413, error: "Payload too large", code: "EntityTooLarge", message: "The object exceeded the maximum allowed size")
    public static let invalidRange = StorageError(status: 416, error: "invalid_range", code: "InvalidRange", message: "invalid range provided")

    /// A 416 for an object of `size` bytes: its `Content-Range: bytes */size` says how many there are.
    public static func invalidRange(size: Int64) -> StorageError {
        var error = invalidRange
        error.contentRange = "bytes */\(size)"
        return error
    }
    public static let noContent = StorageError(status: 400, error: "InvalidRequest", code: "InvalidRequest", message: "No content provided")
    public static let bucketNameInvalid = StorageError(status: 400, error: "Invalid Input", code: "InvalidBucketName", message: "Bucket name invalid")
    public static let invalidSignature = StorageError(status: 400, error: "InvalidSignature", code: "InvalidSignature", message: "Invalid signature")
    public static let rowSecurity = accessDenied("new row violates row-level security policy")

    public static func invalidKey(_ key: String) -> StorageError {
        StorageError(status: 400, error: "InvalidKey", code: "InvalidKey", message: "Invalid key: \(key)")
    }

    public static func invalidMimeType(_ type: String) -> StorageError {
        StorageError(status: 415, error: "invalid_mime_type", code: "InvalidMimeType", message: "mime type \(type) is not supported")
    }

    public static func accessDenied(_ message: String) -> StorageError {
        StorageError(status: 403, error: "Unauthorized", code: "AccessDenied", message: message)
    }

    public static func invalidRequest(_ message: String) -> StorageError {
        StorageError(status: 400, error: "Error", code: "InvalidRequest", message: message)
    }

    public static func invalidParameter(_ name: String) -> StorageError {
        StorageError(status: 400, error: "InvalidParameter", code: "InvalidParameter", message: "Invalid Parameter \(name)")
    }

    public static func invalidJWT(_ message: String) -> StorageError {
        StorageError(status: 400, error: "InvalidJWT", code: "InvalidJWT", message: message)
    }

    public static func notScoped(for scope: String) -> StorageError {
        StorageError(status: 400, error: "InvalidSignature", code: "InvalidSignature", message: "Token is not scoped for \(scope)")
    }

    /// A server fault: its words go to the log, never to the client.
    public static func `internal`(_ message: String) -> StorageError {
        StorageError(status: 500, error: "internal", code: "InternalError", message: message)
    }
}
