import Foundation
import SoarCore

/// One bucket's objects: upload, download, list, remove, and signed or public URLs.
///
/// Errors are ``AppError``s by Storage's own status (`statusCode` in its answer: 404 not found,
/// 409 already there, 403 refused by a policy, 413 too large), not the HTTP 400 it is sent with.
public struct StorageBucket: Sendable {
    public let id: String
    let backend: Backend
    let auth: SoarAuthClient

    /// Stores `data` at `path` (`folder/name.png`), as its raw body.
    public func upload(_ path: String, data: Data, options: FileOptions = FileOptions()) async throws(AppError) -> FileUploadResponse {
        try await store("POST", path, data, options)
    }

    /// Replaces the object at `path` (or stores it when there is none).
    public func update(_ path: String, data: Data, options: FileOptions = FileOptions()) async throws(AppError) -> FileUploadResponse {
        try await store("PUT", path, data, options)
    }

    /// The object's bytes, or a render of an image with `transform`.
    public func download(path: String, options transform: TransformOptions? = nil) async throws(AppError) -> Data {
        let prefix = transform == nil ? "storage/v1/object/" : "storage/v1/render/image/authenticated/"
        return try await send(Backend.Request(method: "GET", path: prefix + objectPath(path), query: transform?.queryItems ?? []))
    }

    /// A URL that reads the object without a key until `expiresIn` seconds pass (the caller must
    /// be allowed to read it now); with `transform`, a URL of its render.
    public func createSignedURL(path: String, expiresIn: Int, transform: TransformOptions? = nil) async throws(AppError) -> URL {
        var body: [String: JSONValue] = ["expiresIn": .int(expiresIn)]
        if let transform { body["transform"] = transform.json }
        let data = try await send(Backend.Request(method: "POST", path: "storage/v1/object/sign/" + objectPath(path), body: JSONValue.object(body).jsonData))
        guard let signed = (try? JSONValue.read(data))?.objectValue?["signedURL"]?.stringValue,
            let url = URL(string: backend.url.absoluteString.trimmingSuffix("/") + "/storage/v1" + signed)
        else { throw AppError(.unknown, AppError.Messages.server) }
        return url
    }

    /// The URL of an object of a public bucket (read by anyone, no request made).
    public func getPublicURL(path: String, transform: TransformOptions? = nil) -> URL {
        let prefix = transform == nil ? "/storage/v1/object/public/" : "/storage/v1/render/image/public/"
        var components = URLComponents(string: backend.url.absoluteString.trimmingSuffix("/") + prefix + objectPath(path))!
        if let items = transform?.queryItems, !items.isEmpty { components.queryItems = items }
        return components.url!
    }

    /// The objects and folders directly under `path`.
    public func list(path: String? = nil, limit: Int = 100, offset: Int = 0, search: String? = nil) async throws(AppError) -> [FileObject] {
        var body: [String: JSONValue] = ["prefix": .string(path ?? ""), "limit": .int(limit), "offset": .int(offset), "sortBy": ["column": "name", "order": "asc"]]
        if let search { body["search"] = .string(search) }
        let data = try await send(Backend.Request(method: "POST", path: "storage/v1/object/list/" + Backend.segment(id), body: JSONValue.object(body).jsonData))
        do { return try JSONCoding.decoder().decode([FileObject].self, from: data) } catch { throw AppError(.unknown, AppError.Messages.server, original: error) }
    }

    /// Removes the objects at `paths` the caller may remove; answers the names removed.
    @discardableResult
    public func remove(paths: [String]) async throws(AppError) -> [String] {
        let body = JSONValue.object(["prefixes": .array(paths.map(JSONValue.string))]).jsonData
        let data = try await send(Backend.Request(method: "DELETE", path: "storage/v1/object/" + Backend.segment(id), body: body))
        return ((try? JSONValue.read(data))?.arrayValue ?? []).compactMap { $0.objectValue?["name"]?.stringValue }
    }

    private func store(_ method: String, _ path: String, _ data: Data, _ options: FileOptions) async throws(AppError) -> FileUploadResponse {
        var headers = ["Content-Type": options.contentType ?? "application/octet-stream", "Cache-Control": "max-age=\(options.cacheControl)"]
        if options.upsert { headers["x-upsert"] = "true" }
        let answer = try await send(Backend.Request(method: method, path: "storage/v1/object/" + objectPath(path), headers: headers, body: data))
        let fields = (try? JSONValue.read(answer))?.objectValue ?? [:]
        let key = fields["Key"]?.stringValue ?? id + "/" + path
        return FileUploadResponse(id: fields["Id"]?.stringValue ?? "", path: path, fullPath: key)
    }

    /// `bucket/a/b.png`, each segment percent-encoded.
    private func objectPath(_ path: String) -> String {
        ([id] + path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)).map(Backend.segment).joined(separator: "/")
    }

    /// Storage sends its errors as HTTP 400 with the status that means something in the body.
    private func send(_ request: Backend.Request) async throws(AppError) -> Data {
        do { return try await backend.send(request, as: auth) } catch {
            guard let failure = error.original as? HTTPFailure, let fields = (try? JSONValue.read(failure.body))?.objectValue,
                let status = fields["statusCode"]?.stringValue.flatMap({ Int($0) }) ?? fields["statusCode"]?.intValue, status != failure.status
            else { throw error }
            throw AppError(status: status, body: failure.body)
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
