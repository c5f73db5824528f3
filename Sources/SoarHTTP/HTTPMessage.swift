import Foundation
import SoarCore

/// An HTTP request as a handler sees it: header names lowercased, the body read whole.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded by the server.
    public var path: String
    public var query: [String: String]
    public var headers: [String: String]
    public var body: Data

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// What a handler answers.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data

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
