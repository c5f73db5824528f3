import Foundation
import SoarCore

/// A data-API write waiting for the server: the request exactly as it will be sent.
public struct PendingWrite: Codable, Hashable, Sendable, Identifiable {
    public var id: UUID
    public var table: String
    public var method: String
    /// The query string's items, in order, as name and value.
    public var parameters: [[String]]
    public var headers: [String: String]
    public var body: Data?
    public var queuedAt: Date
    /// Who made it: it is sent only while that user is signed in.
    public var userId: UUID?

    /// What the write does, for logs and for the error a user reads: `POST todos`.
    public var summary: String { "\(method) \(table)" }
}

/// A queued write the server refused when it was replayed; it is not retried.
public struct RejectedWrite: Sendable, Identifiable {
    public var write: PendingWrite
    public var error: AppError
    public var id: UUID { write.id }
}

extension Query {
    /// This write as a ``PendingWrite`` to keep for later.
    var pendingWrite: PendingWrite {
        get throws(AppError) {
            let request = try request()
            return PendingWrite(
                id: UUID(), table: table, method: request.method,
                parameters: request.query.map { [$0.name, $0.value ?? ""] }, headers: request.headers, body: request.body,
                queuedAt: Date(), userId: nil)
        }
    }
}

extension Soar {
    /// Sends a kept write as the signed-in user.
    ///
    /// An update or delete asks for the rows it changed, so one that matched nothing (the row was
    /// deleted or is not the user's) fails as not found instead of passing silently.
    func send(_ write: PendingWrite) async throws(AppError) {
        var headers = write.headers
        let checked = write.method == "PATCH" || write.method == "DELETE"
        if checked { headers["Prefer"] = "return=representation" }
        let request = Backend.Request(
            method: write.method, path: Query.path(write.table),
            query: write.parameters.map { URLQueryItem(name: $0[0], value: $0.count > 1 ? $0[1] : nil) },
            headers: headers, body: write.body)
        let answer = try await backend.send(request, as: auth)
        if checked, (try? JSONValue.read(answer).arrayValue?.isEmpty) == true {
            throw AppError(.notFound, "That item was changed or deleted elsewhere, so this change was not saved.")
        }
    }
}
