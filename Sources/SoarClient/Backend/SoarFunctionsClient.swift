import Foundation
import SoarCore

/// Calls functions (`/functions/v1/<name>`) as the signed-in user, as supabase-swift's
/// `client.functions.invoke(_:options:)` does.
public struct SoarFunctionsClient: Sendable {
    let backend: Backend
    let auth: SoarAuthClient

    /// Calls a function and discards its answer.
    public func invoke(_ name: String, options: InvokeOptions = .init()) async throws(AppError) {
        _ = try await send(name, options)
    }

    /// Calls a function and decodes its JSON answer.
    public func invoke<T: Decodable>(_ name: String, options: InvokeOptions = .init(), decoder: JSONDecoder? = nil) async throws(AppError) -> T {
        let data = try await send(name, options)
        do { return try (decoder ?? JSONCoding.decoder()).decode(T.self, from: data) } catch {
            throw AppError(.unknown, AppError.Messages.server, original: error)
        }
    }

    /// Calls a function and hands its answer's body to `decode`.
    public func invoke<T>(_ name: String, options: InvokeOptions = .init(), decode: (Data) throws -> T) async throws(AppError) -> T {
        let data = try await send(name, options)
        do { return try decode(data) } catch { throw AppError.map(error) }
    }

    private func send(_ name: String, _ options: InvokeOptions) async throws(AppError) -> Data {
        let body = try options.body.get()
        var headers = options.headers
        if let body, headers.keys.allSatisfy({ $0.lowercased() != "content-type" }) { headers["Content-Type"] = body.contentType }
        let request = Backend.Request(
            method: options.method.rawValue, path: "functions/v1/" + Backend.segment(name), query: options.query, headers: headers, body: body?.data)
        return try await backend.send(request, as: auth)
    }
}

/// How a function is called: supabase-swift's `FunctionInvokeOptions`, by the same labels
/// (`.init(body: request)`, `.init(method: .get, headers: [...])`).
public struct InvokeOptions: Sendable {
    public enum Method: String, Sendable {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"
    }

    struct Body: Sendable {
        var data: Data
        var contentType: String
    }

    public var method: Method
    public var query: [URLQueryItem]
    public var headers: [String: String]
    let body: Result<Body?, AppError>

    /// No body; `POST` unless `method` says otherwise.
    public init(method: Method? = nil, query: [URLQueryItem] = [], headers: [String: String] = [:]) {
        self.method = method ?? .post
        self.query = query
        self.headers = headers
        body = .success(nil)
    }

    /// A JSON body, or text or bytes as they are (`String`, `Data`).
    public init(method: Method? = nil, query: [URLQueryItem] = [], headers: [String: String] = [:], body: some Encodable & Sendable) {
        self.method = method ?? .post
        self.query = query
        self.headers = headers
        switch body {
        case let data as Data: self.body = .success(Body(data: data, contentType: "application/octet-stream"))
        case let text as String: self.body = .success(Body(data: Data(text.utf8), contentType: "text/plain"))
        default:
            do { self.body = .success(Body(data: try JSONCoding.encode(body), contentType: "application/json")) } catch {
                self.body = .failure(AppError(.validation, "The request could not be encoded.", original: error))
            }
        }
    }
}
