import Foundation
import SoarCore
import SoarCrypto
import SoarStore

/// Signed URLs: a JWT (HS256 with a key derived from the server's secret: never a token the API
/// takes) naming one object and what it may be used for; a download's right is checked when it
/// is signed, an upload's when it is used (as the signer).
extension StorageService {
    /// `/object/sign/<bucket>/<name>`: a download URL for an object the caller may read.
    ///
    /// - Returns: the URL's path and query below `/storage/v1`.
    public func signedURL(bucket: String, name: String, expiresIn: JSONValue?, transform: ImageTransform? = nil, as access: Access) throws(StorageError) -> String {
        let seconds = try Self.lifetime(expiresIn)
        guard let object = try object(bucket, name, as: access) else { throw .objectNotFound }
        if transform != nil, !object.mimeType.lowercased().hasPrefix("image/") {
            throw .invalidRequest("\(bucket)/\(name) is \(object.mimeType), not an image: it has no render")
        }
        var claims: [String: JSONValue] = ["url": .string(bucket + "/" + name), "scope": "download"]
        if let transform { claims["transformations"] = .string(transform.claim) }
        let token = try sign(claims, seconds: seconds)
        return (transform == nil ? "/object/sign/" : "/render/image/sign/") + bucket + "/" + name + "?token=" + token
    }

    /// `/object/sign/<bucket>` with `paths`: one answer per path, in order, an error for those the
    /// caller may not read.
    public func signedURLs(bucket: String, _ body: JSONValue, as access: Access) throws(StorageError) -> JSONValue {
        let seconds = try Self.lifetime(body["expiresIn"])
        guard let paths = body["paths"]?.arrayValue?.compactMap(\.stringValue), (1...1000).contains(paths.count) else {
            throw .invalidRequest("body/paths must have between 1 and 1000 items")
        }
        let condition = RowQuery.Condition.all([Self.equal("bucket_id", bucket), .compare(column: "name", op: .in, operand: .list(paths.map(SQLValue.text)))])
        let table = objects
        let rows = try run { () throws(StoreError) in try store.select(table, Self.columns(["name"]).with(condition), as: access, counting: false).rows }
        let readable = Set(rows.compactMap { Record($0, table).text("name") })
        var answers: [JSONValue] = []
        for path in paths {
            guard readable.contains(path) else {
                answers.append(["error": "Either the object does not exist or you do not have access to it", "path": .string(path), "signedURL": .null])
                continue
            }
            let token = try sign(["url": .string(bucket + "/" + path), "scope": "download"], seconds: seconds)
            answers.append(["error": .null, "path": .string(path), "signedURL": .string("/object/sign/\(bucket)/\(path)?token=\(token)")])
        }
        return .array(answers)
    }

    /// `/object/upload/sign/<bucket>/<name>`: an upload URL. Its use writes the row as the
    /// signer (their policies then), owned by them.
    public func signedUploadURL(bucket id: String, name: String, upsert: Bool, as access: Access) throws(StorageError) -> JSONValue {
        guard Self.validBucketName(id) else { throw .bucketNameInvalid }
        try Self.requireValidKey(name)
        do { _ = try bucket(id, as: .service) } catch where error == .bucketNotFound { throw .relatedMissing }
        if !upsert, try object(id, name, as: .service) != nil { throw .keyExists }
        var claims: [String: JSONValue] = ["url": .string(id + "/" + name), "upsert": .bool(upsert), "scope": "upload", "storage_role": .string(access.role.rawValue)]
        if let user = access.userID { claims["owner"] = .string(user) }
        let token = try sign(claims, seconds: limits.uploadURLLifetime)
        return ["url": .string("/object/upload/sign/\(id)/\(name)?token=\(token)"), "token": .string(token)]
    }

    /// What a signed URL's token allows, once checked against the object it is used for.
    public struct Grant: Sendable {
        /// Who the use acts as (an upload: the signer).
        public let access: Access
        public let upsert: Bool
        /// Unix time it ends (a download's `Expires`).
        public let expires: Int
        /// A signed render's transform (`/render/image/sign/...`).
        public let transform: ImageTransform?
    }

    /// Checks a token for `scope` (`download` or `upload`) on `bucket/name`.
    ///
    /// - Throws: ``StorageError`` InvalidJWT (bad, forged or expired), InvalidSignature (another
    ///   object, or the other scope).
    public func verify(_ token: String?, scope: String, bucket: String, name: String) throws(StorageError) -> Grant {
        guard let token, !token.isEmpty else { throw .invalidRequest("querystring must have required property 'token'") }
        let unverified: JWT.Unverified
        do { unverified = try JWT.decode(token) } catch { throw .invalidJWT("Invalid Compact JWS") }
        guard unverified.verify(secret: secret) else { throw .invalidJWT("signature verification failed") }
        let claims = unverified.jwt.claims
        guard let expires = claims["exp"]?.intValue, expires > Int(now().timeIntervalSince1970) else { throw .invalidJWT("\"exp\" claim timestamp check failed") }
        guard claims["scope"]?.stringValue == scope else { throw .notScoped(for: scope) }
        guard claims["url"]?.stringValue == bucket + "/" + name else { throw .invalidSignature }
        let owner = claims["owner"]?.stringValue
        let role = claims["storage_role"]?.stringValue.flatMap(Access.Role.init(rawValue:)) ?? (owner == nil ? .anon : .authenticated)
        let transform = try claims["transformations"]?.stringValue.map { (claim) throws(StorageError) in try ImageTransform(claim: claim) }
        return Grant(access: Access(role: role, userID: owner), upsert: claims["upsert"]?.boolValue ?? false, expires: expires, transform: transform)
    }

    private func sign(_ claims: [String: JSONValue], seconds: Int) throws(StorageError) -> String {
        let issued = Int(now().timeIntervalSince1970)
        var claims = claims
        claims["iat"] = .int(issued)
        claims["exp"] = .int(issued + seconds)
        do { return try JWT(header: ["typ": "JWT"], claims: claims).signed(secret: secret) } catch { throw .internal("cannot sign a URL: \(error)") }
    }

    /// `expiresIn`: whole seconds, at least 1 (a string of digits too, as storage3 sends it).
    static func lifetime(_ value: JSONValue?) throws(StorageError) -> Int {
        guard let value else { throw .invalidRequest("body must have required property 'expiresIn'") }
        guard let seconds = value.intValue ?? value.stringValue.flatMap({ Int($0) }), seconds >= 1, seconds <= 10 * 365 * 86_400 else {
            throw .invalidParameter("expiresIn")
        }
        return seconds
    }
}

extension RowQuery {
    func with(_ condition: Condition) -> RowQuery {
        var query = self
        query.condition = condition
        return query
    }
}
