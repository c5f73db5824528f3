import Foundation
import SoarCore

/// An upload's body as it streams in: raw bytes straight to the file, or a `multipart/form-data`
/// form whose first file part is the object and whose fields before it (`cacheControl`,
/// `metadata`, `contentType`) describe it, as Supabase Storage reads it.
public final class UploadBody: @unchecked Sendable {
    public let file: ObjectUpload
    private var form: MultipartReader?
    /// Set for a form once its file part began; then its bytes go to the file.
    private var inFile = false
    private var fileDone = false
    private var field: (name: String, value: [UInt8])?
    private var fields: [String: String] = [:]
    /// The file part's own `Content-Type`.
    private var partType: String?
    /// The headers' `Content-Type` (a raw body's type) and `Cache-Control`.
    private let requestType: String?
    private let requestCacheControl: String?
    private let requestMetadata: String?

    init(file: ObjectUpload, contentType: String?, cacheControl: String?, metadataHeader: String?) {
        self.file = file
        form = contentType.flatMap(MultipartReader.init(contentType:))
        requestType = contentType
        requestCacheControl = cacheControl
        requestMetadata = metadataHeader
    }

    public var isForm: Bool { form != nil }

    /// The next bytes of the body.
    ///
    /// - Throws: ``StorageError`` over the size limit (413) or for a form that cannot be read.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        guard form != nil else { return try file.write(bytes) }
        do {
            try form!.feed(bytes) { event in try self.take(event) }
        } catch let error as StorageError {
            throw error
        } catch let error as MultipartReader.Failure {
            throw .invalidRequest(error.reason)
        } catch {
            throw .invalidRequest("\(error)")
        }
    }

    private func take(_ event: MultipartReader.Event) throws {
        switch event {
        case .part(let headers):
            finishField()
            if inFile { (inFile, fileDone) = (false, true) }
            let (name, fileName) = MultipartReader.disposition(headers)
            if fileName != nil, !fileDone {
                inFile = true
                partType = headers["content-type"]
            } else if !fileDone, fields.count < 10, let name {
                field = (name, [])
            }
        case .bytes(let bytes):
            if inFile {
                try file.write(bytes)
            } else if field != nil {
                guard field!.value.count + bytes.count <= 1 << 20 else {
                    throw StorageError(status: 413, error: "Payload too large", code: "EntityTooLarge", message: "The user_metadata exceeded the maximum allowed size")
                }
                field!.value += bytes
            }
        }
    }

    /// `type/subtype` with parameters, printable ASCII only: it is sent back as a header.
    static func validMimeType(_ type: String) -> Bool {
        let essence = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        return type.utf8.count <= 255 && type.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7f }
            && parts.count == 2 && parts.allSatisfy { !$0.isEmpty && !$0.contains(" ") }
    }

    private func finishField() {
        if let field { fields[field.name] = String(decoding: field.value, as: UTF8.self) }
        field = nil
    }

    /// What the body said of the object, once it all arrived.
    ///
    /// - Throws: ``StorageError/noContent`` for a form without a file part or not closed.
    func described() throws(StorageError) -> (mimeType: String, cacheControl: String, userMetadata: JSONValue) {
        guard let form else {
            let metadata = requestMetadata.flatMap { Data(base64Encoded: $0) }.flatMap { try? JSONValue.read($0) }
            let mime = requestType ?? "application/octet-stream"
            guard Self.validMimeType(mime) else { throw .invalidMimeType(String(mime.prefix(100))) }
            return (mime, requestCacheControl ?? "no-cache", metadata?.objectValue != nil ? metadata! : .null)
        }
        finishField()
        guard inFile || fileDone, form.finished else { throw .noContent }
        let metadata = (fields["metadata"] ?? fields["userMetadata"]).flatMap { try? JSONValue.read(Data($0.utf8)) }
        let mime = fields["contentType"] ?? partType ?? "application/octet-stream"
        guard Self.validMimeType(mime) else { throw .invalidMimeType(String(mime.prefix(100))) }
        var cacheControl = "no-cache"
        if let seconds = fields["cacheControl"]?.trimmingCharacters(in: .whitespaces) {
            guard !seconds.isEmpty, seconds.allSatisfy(\.isNumber), seconds.count <= 10 else { throw .invalidRequest("cacheControl must be a number of seconds") }
            cacheControl = "max-age=" + seconds
        }
        return (mime, cacheControl, metadata?.objectValue != nil ? metadata! : .null)
    }
}
