import Foundation
import SoarCore
import SoarHTTP
import SoarStorage
import SoarStore

/// Supabase Storage's routes at `/storage/v1`, adapted to ``StorageService``. Uploads stream:
/// ``beginUpload(_:route:parameters:)`` checks a request once its headers are in and hands the
/// HTTP server a sink that writes the body to its file.
struct StorageEndpoints: Sendable {
    let storage: StorageService
    let gateway: Gateway

    /// Whether a request's body is an object's bytes: `POST`/`PUT /object/<bucket>/<name>` and
    /// `PUT /object/upload/sign/<bucket>/<name>` (a `POST` there asks for the URL).
    static func streams(_ method: String, route: String) -> Bool {
        route == "/storage/v1/object/{bucket}/{name*}" || (route == "/storage/v1/object/upload/sign/{bucket}/{name*}" && method == "PUT")
    }

    func register(in router: inout Router) {
        let prefix = "/storage/v1"
        router.add(["GET"], prefix + "/bucket") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let query = exchange.request
            return try json {
                try storage.listBuckets(
                    limit: query.queryValue("limit").flatMap { Int($0) }, offset: query.queryValue("offset").flatMap { Int($0) },
                    search: query.queryValue("search"), as: access)
            }
        }
        router.add(["POST"], prefix + "/bucket") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            return try json { try storage.createBucket(body, as: access) }
        }
        router.add(["GET", "PUT", "DELETE"], prefix + "/bucket/{id}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let id = exchange.parameters["id"] ?? ""
            switch exchange.request.method {
            case "PUT":
                let body = try body(exchange)
                return try json { try storage.updateBucket(id, body, as: access) }
            case "DELETE": return try json { try storage.deleteBucket(id, as: access) }
            default: return try json { try storage.getBucket(id, as: access) }
            }
        }
        router.add(["POST"], prefix + "/bucket/{id}/empty") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            return try json { try storage.emptyBucket(exchange.parameters["id"] ?? "", as: access) }
        }
        router.add(["POST"], prefix + "/object/list/{bucket}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            return try json { try storage.list(bucket: exchange.parameters["bucket"] ?? "", body, as: access) }
        }
        router.add(["POST"], prefix + "/object/move") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            return try json { try storage.move(body, as: access) }
        }
        router.add(["POST"], prefix + "/object/copy") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            return try json { try storage.copy(body, upsert: exchange.header("x-upsert") == "true", as: access) }
        }
        router.add(["POST"], prefix + "/object/sign/{bucket}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            return try json { try storage.signedURLs(bucket: exchange.parameters["bucket"] ?? "", body, as: access) }
        }
        router.add(["POST"], prefix + "/object/sign/{bucket}/{name*}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
            return try json {
                let options = body.objectValue?["transform"]?.objectValue
                let transform = try options.map { options throws(StorageError) in
                    try ImageTransform(query: { options[$0].map { $0.stringValue ?? $0.jsonText } })
                }
                return ["signedURL": .string(try storage.signedURL(bucket: bucket, name: name, expiresIn: body.objectValue?["expiresIn"], transform: transform, as: access))]
            }
        }
        router.add(["GET"], prefix + "/object/sign/{bucket}/{name*}") { exchange throws(ServerError) in
            let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
            return try answer {
                let grant = try storage.verify(exchange.request.queryValue("token"), scope: "download", bucket: bucket, name: name)
                let object = try storage.find(bucket: bucket, name: name, route: .signed, as: grant.access)
                return try Download(storage: storage, object: object, request: exchange.request, expires: grant.expires).response()
            }
        }
        router.add(["POST"], prefix + "/object/upload/sign/{bucket}/{name*}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
            return try json { try storage.signedUploadURL(bucket: bucket, name: name, upsert: exchange.header("x-upsert") == "true", as: access) }
        }
        router.add(["PUT"], prefix + "/object/upload/sign/{bucket}/{name*}") { exchange throws(ServerError) in
            try finishUpload(exchange, signed: true)
        }
        for (path, route) in [("/object/info/public/", StorageService.Route.public), ("/object/info/authenticated/", .authenticated), ("/object/info/", .authenticated)] {
            router.add(["GET"], prefix + path + "{bucket}/{name*}") { exchange throws(ServerError) in
                let access = route == .public ? Access.anon : try admit(&exchange, optional: path == "/object/info/")
                let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
                return try json { try storage.find(bucket: bucket, name: name, route: route, as: access).info }
            }
        }
        for (path, route) in [("/object/public/", StorageService.Route.public), ("/object/authenticated/", .authenticated), ("/object/", .authenticated)] {
            router.add(["GET"], prefix + path + "{bucket}/{name*}") { exchange throws(ServerError) in
                let access = route == .public ? Access.anon : try admit(&exchange, optional: path == "/object/")
                let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
                return try answer {
                    let object = try storage.find(bucket: bucket, name: name, route: route, as: access)
                    return try Download(storage: storage, object: object, request: exchange.request, expires: nil).response()
                }
            }
        }
        router.add(["GET"], prefix + "/render/image/sign/{bucket}/{name*}") { exchange throws(ServerError) in
            let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
            return try answer {
                let grant = try storage.verify(exchange.request.queryValue("token"), scope: "download", bucket: bucket, name: name)
                let object = try storage.find(bucket: bucket, name: name, route: .signed, as: grant.access)
                var download = Download(storage: storage, object: object, request: exchange.request, expires: grant.expires)
                download.transform = grant.transform ?? ImageTransform()
                return try download.response()
            }
        }
        for (path, route) in [("/render/image/public/", StorageService.Route.public), ("/render/image/authenticated/", .authenticated)] {
            router.add(["GET"], prefix + path + "{bucket}/{name*}") { exchange throws(ServerError) in
                let access = route == .public ? Access.anon : try admit(&exchange)
                let (bucket, name) = (exchange.parameters["bucket"] ?? "", exchange.parameters["name"] ?? "")
                let request = exchange.request
                return try answer {
                    let transform = try ImageTransform(query: request.queryValue)
                    let object = try storage.find(bucket: bucket, name: name, route: route, as: access)
                    var download = Download(storage: storage, object: object, request: request, expires: nil)
                    download.transform = transform
                    return try download.response()
                }
            }
        }
        router.add(["POST", "PUT"], prefix + "/object/{bucket}/{name*}") { exchange throws(ServerError) in
            try finishUpload(exchange, signed: false)
        }
        router.add(["DELETE"], prefix + "/object/{bucket}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            let body = try body(exchange)
            return try json { try storage.remove(bucket: exchange.parameters["bucket"] ?? "", body, as: access) }
        }
        router.add(["DELETE"], prefix + "/object/{bucket}/{name*}") { exchange throws(ServerError) in
            let access = try admit(&exchange)
            return try json { try storage.removeOne(bucket: exchange.parameters["bucket"] ?? "", name: exchange.parameters["name"] ?? "", as: access) }
        }
    }

    // MARK: uploads

    /// Where an upload's body goes: checked now (keys, bucket, declared size, type), then streamed
    /// to its file; a refusal is answered before any of the body is read.
    func beginUpload(_ request: HTTPRequest, route: String, parameters: [String: String]) -> Result<UploadSink, ServerError> {
        var exchange = Exchange(request: request, requestID: "")
        exchange.parameters = parameters
        let signed = route.contains("/upload/sign/")
        let (bucket, name) = (parameters["bucket"] ?? "", parameters["name"] ?? "")
        do throws(ServerError) {
            let access: Access
            var upsert: Bool
            var owner: String?
            if signed {
                let grant = try attempt { try storage.verify(request.queryValue("token"), scope: "upload", bucket: bucket, name: name) }
                (access, upsert, owner) = (grant.access, grant.upsert, grant.access.userID)
            } else {
                access = try admit(&exchange)
                upsert = request.method == "PUT" || request.headers["x-upsert"] == "true"
            }
            let length = request.headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            let pending = try attempt {
                try storage.beginUpload(
                    bucket: bucket, name: name, length: length, contentType: request.headers["content-type"],
                    cacheControl: request.headers["cache-control"], metadata: request.headers["x-metadata"])
            }
            return .success(UploadSink(pending: pending, access: access, upsert: upsert, owner: owner))
        } catch {
            return .failure(error)
        }
    }

    private func finishUpload(_ exchange: Exchange, signed: Bool) throws(ServerError) -> HTTPResponse {
        guard let sink = exchange.request.sink as? UploadSink else { throw .storage(.invalidRequest("the upload's path is not one Storage reads")) }
        return try json {
            let (id, key) = try storage.finishUpload(sink.pending, upsert: sink.upsert, as: sink.access, owner: sink.owner)
            return signed ? ["Key": .string(key)] : ["Id": .string(id), "Key": .string(key)]
        }
    }

    // MARK: helpers

    /// The gateway's checks, its JWT failures in Storage's words. `optional`: no token at all
    /// reads as anon (the plain `/object/...` and `/object/info/...` reads); a token that does
    /// not verify is refused there too, never taken for anon.
    private func admit(_ exchange: inout Exchange, optional: Bool = false) throws(ServerError) -> Access {
        try gateway.requireAPIKey(exchange)
        do {
            try gateway.admit(&exchange)
        } catch {
            if optional, exchange.header("authorization") == nil { return .anon }
            if case .rest(_, let message, _, _) = error.shape { throw .storage(.accessDenied(message)) }
            throw error
        }
        return exchange.access
    }

    private func body(_ exchange: Exchange) throws(ServerError) -> JSONValue {
        try exchange.json { .storage(.invalidRequest("body is not valid JSON: \($0)")) }
    }

    /// Storage work, its errors as the server's (the closures' errors are untyped: Swift infers
    /// `any Error` for a closure that calls typed-throwing methods).
    private func attempt<T>(_ work: () throws -> T) throws(ServerError) -> T {
        do { return try work() } catch let error as StorageError { throw .storage(error) } catch { throw .storage(.internal("\(error)")) }
    }

    private func json(_ work: () throws -> JSONValue) throws(ServerError) -> HTTPResponse {
        .json(200, try attempt(work))
    }

    private func answer(_ work: () throws -> HTTPResponse) throws(ServerError) -> HTTPResponse {
        try attempt(work)
    }
}

/// An upload's body on its way to its file, for the HTTP server.
final class UploadSink: RequestBodySink, @unchecked Sendable {
    let pending: StorageService.PendingUpload
    let access: Access
    let upsert: Bool
    let owner: String?
    /// Set by the server: the answer to a body refused part way (its log line and headers).
    var refusal: (@Sendable (StorageError) -> HTTPResponse)?

    init(pending: StorageService.PendingUpload, access: Access, upsert: Bool, owner: String?) {
        self.pending = pending
        self.access = access
        self.upsert = upsert
        self.owner = owner
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse? {
        do {
            try pending.body.write(bytes)
            return nil
        } catch {
            pending.body.file.discard()
            return refusal?(error) ?? HTTPResponse(status: error.httpStatus)
        }
    }
}
