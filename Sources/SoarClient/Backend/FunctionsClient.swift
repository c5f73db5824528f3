import Foundation
import SoarCore

/// Calls functions (`/functions/v1/<name>`) as the signed-in user.
public struct FunctionsClient: Sendable {
    let backend: Backend
    let auth: AuthClient

    /// Calls a function with a JSON body and returns its answer's body.
    @discardableResult
    public func invoke(_ name: String, body: some Encodable & Sendable) async throws(AppError) -> Data {
        let data: Data
        do { data = try JSONCoding.encode(body) } catch { throw AppError(.validation, "The request could not be encoded.", original: error) }
        return try await backend.send(Backend.Request(method: "POST", path: "functions/v1/" + Backend.segment(name), body: data), as: auth)
    }

    /// Calls a function and decodes its JSON answer.
    public func invoke<Answer: Decodable>(_ name: String, body: some Encodable & Sendable, as type: Answer.Type) async throws(AppError) -> Answer {
        let data = try await invoke(name, body: body)
        do { return try JSONCoding.decode(type, from: data) } catch { throw AppError(.unknown, AppError.Messages.server, original: error) }
    }
}
