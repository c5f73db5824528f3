import Foundation
import SoarCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the backend is and how every request reaches it: the `apikey` header, the caller's JWT,
/// JSON bodies, and errors mapped to ``AppError``.
struct Backend: Sendable {
    let url: URL
    let anonKey: String
    let transport: any HTTPTransport

    /// One request to the backend.
    struct Request: Sendable {
        var method: String
        var path: String
        var query: [URLQueryItem] = []
        var headers: [String: String] = [:]
        var body: Data? = nil
    }

    /// Sends a request with `bearer` as the JWT (the anon key when nil).
    ///
    /// - Returns: the body of a 2xx answer.
    /// - Throws: ``AppError``, made by ``AppError/map(_:)`` from the transport's error or the
    ///   answer's status and body (kept as an ``HTTPFailure`` in `original`).
    func send(_ request: Request, bearer: String?) async throws(AppError) -> Data {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw AppError(.validation, "The backend URL \(url) is not usable.")
        }
        // `request.path` is already percent-encoded, segment by segment.
        var base = components.percentEncodedPath
        while base.hasSuffix("/") { base.removeLast() }
        components.percentEncodedPath = base + "/" + request.path
        if !request.query.isEmpty { components.percentEncodedQueryItems = request.query.map(Self.encoded) }
        guard let target = components.url else { throw AppError(.validation, "The request for \(request.path) could not be built.") }
        var urlRequest = URLRequest(url: target)
        urlRequest.httpMethod = request.method
        urlRequest.setValue(anonKey, forHTTPHeaderField: "apikey")
        urlRequest.setValue("Bearer \(bearer ?? anonKey)", forHTTPHeaderField: "Authorization")
        // GoTrue's current error shape (`{code, message}`), as supabase-swift asks for it.
        if request.path.hasPrefix("auth/") { urlRequest.setValue("2024-01-01", forHTTPHeaderField: "X-Supabase-Api-Version") }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body {
            urlRequest.httpBody = body
            if request.headers["Content-Type"] == nil { urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        }
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await transport.send(urlRequest)
        } catch {
            throw AppError.map(error)
        }
        guard (200..<300).contains(response.statusCode) else {
            throw AppError(status: response.statusCode, body: data)
        }
        return data
    }

    /// A name (a table, a function) as one path segment: `/`, `?`, `#` and `%` cannot escape it.
    static func segment(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }

    /// A query item with its value encoded the way PostgREST reads it (`+`, `&`, `=` escaped).
    private static func encoded(_ item: URLQueryItem) -> URLQueryItem {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=#")
        let value = item.value?.addingPercentEncoding(withAllowedCharacters: allowed)
        return URLQueryItem(name: item.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? item.name, value: value)
    }
}

extension AppError {
    /// The HTTP status of the answer behind this error, when there was one.
    public var status: Int? { (original as? HTTPFailure)?.status }

    /// True when no answer came: the device is offline or the server unreachable.
    public var isOffline: Bool { code == .network && status == nil }
}
