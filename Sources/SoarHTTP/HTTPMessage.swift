import Foundation
import SoarCore

/// An HTTP request as a handler sees it: header names lowercased, the body read whole (or
/// streamed to the ``sink`` its body destination named).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded by the server.
    public var path: String
    /// Query parameters in order, repeats kept (`id=gte.1&id=lte.9`), percent-decoded.
    public var query: [(name: String, value: String)]
    public var headers: [String: String]
    public var body: Data
    /// The sink that took the body, when it was streamed.
    public var sink: (any RequestBodySink)?
    /// The client's IP address, empty when unknown.
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:], body: Data = Data(),
        remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// What a handler answers.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    /// A body sent from a file instead of `body` (a stored object).
    public var file: FileBody?
    /// With a 101 answer: who takes the connection over once it went out.
    public var upgrade: (@Sendable (UpgradedSocket) -> Void)?

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer with `content-type: application/json`.
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        let body = value.jsonData
        return HTTPResponse(status: status, headers: [("content-type", "application/json")], body: body)
    }

    /// `{"error": message}` with the status.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        .json(status, ["error": .string(message)])
    }
}
