import Foundation
import SoarCore
import SoarHTTP
import SoarPush
import SoarStore

/// Push's routes: the seed's `send-test-push`, `send-push` and its statistics for the service
/// role, and seed 001's device-token endpoint.
struct PushEndpoints: Sendable {
    let push: PushService
    let gateway: Gateway
    /// How long send-test-push may hold an HTTP worker thread; APNs' own timeouts and retries can
    /// take longer when it does not answer, and the server has only a few workers.
    let deadline: Duration

    func register(in router: inout Router) {
        router.add(["POST"], "/functions/v1/send-test-push") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            let userID = try caller(exchange, "send-test-push sends to the caller's own devices")
            let body = try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") }
            let push = self.push
            return try Self.answer(status: 200, deadline: deadline) { () async throws(PushError) -> JSONValue in
                try await push.sendTestPush(userID: userID, body: body)
            }
        }
        router.add(["POST"], "/functions/v1/send-push") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "send-push sends to any user's devices")
            let body = try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") }
            do throws(PushError) { return .json(202, try push.sendPush(body: body)) } catch { throw Self.serverError(error) }
        }
        router.add(["GET"], "/functions/v1/sends/{id}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "a send's statistics are the server's")
            do throws(PushError) { return .json(200, try push.sendStatus(id: exchange.parameters["id"] ?? "")) } catch { throw Self.serverError(error) }
        }
        router.add(["POST", "DELETE"], "/api/creator/device_tokens") { exchange throws(ServerError) in
            try gateway.admit(&exchange, apiKeyOptional: true)
            let userID = try caller(exchange, "a device token belongs to a signed-in user")
            let body = try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") }
            do throws(PushError) {
                if exchange.request.method == "POST" {
                    return .json(201, .object(try push.register(userID: userID, body: body)))
                }
                guard let token = body.objectValue?["token"]?.stringValue ?? exchange.request.queryValue("token") else {
                    throw PushError.invalid("token is required (in the body or as ?token=)")
                }
                _ = try push.unregister(userID: userID, token: token)
                return HTTPResponse(status: 204)
            } catch {
                throw Self.serverError(error)
            }
        }
    }

    /// The signed-in user's id; anon and the service role are refused with a reason.
    private func caller(_ exchange: Exchange, _ why: String) throws(ServerError) -> String {
        try require(.authenticated, exchange, "A user's access token is required: \(why)")
        return exchange.access.userID ?? ""
    }

    private func serviceRole(_ exchange: Exchange, _ why: String) throws(ServerError) {
        try require(.serviceRole, exchange, "The service_role key is required: \(why)")
    }

    /// 401 for anon, 403 for another role.
    private func require(_ role: Access.Role, _ exchange: Exchange, _ message: String) throws(ServerError) {
        guard exchange.access.role != role || (role == .authenticated && exchange.access.userID == nil) else { return }
        let anon = exchange.access.role == .anon
        throw .function(anon ? 401 : 403, anon ? "unauthorized" : "forbidden", message)
    }

    /// Runs the push service's async work on this HTTP worker thread, up to the deadline.
    private static func answer(
        status: Int, deadline: Duration, _ work: @escaping @Sendable () async throws(PushError) -> JSONValue
    ) throws(ServerError) -> HTTPResponse {
        let result = Blocking.run(deadline: deadline) { () async -> Result<JSONValue, PushError> in
            do throws(PushError) { return .success(try await work()) } catch { return .failure(error) }
        }
        switch result {
        case .success(let json)?: return .json(status, json)
        case .failure(let error)?: throw serverError(error)
        case nil:
            throw .function(
                504, "apns_timeout",
                "APNs did not answer within \(deadline); the notifications may still be delivered, and dead tokens are still removed")
        }
    }

    static func serverError(_ error: PushError) -> ServerError {
        .function(error.status, error.code, error.message)
    }
}

/// Waits on a worker thread of the HTTP server (never a Swift concurrency thread) for async work.
enum Blocking {
    /// The work's result, or nil when it is still running at the deadline (it then goes on alone).
    static func run<T: Sendable>(deadline: Duration, _ work: @escaping @Sendable () async -> T) -> T? {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await work()
            done.signal()
        }
        guard done.wait(timeout: .now() + .nanoseconds(deadline.nanoseconds)) == .success else { return nil }
        return box.value
    }

    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}
