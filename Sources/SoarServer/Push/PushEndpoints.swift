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
    /// How long send-test-push waits for APNs, from the request's arrival, before it answers 504
    /// (APNs' own timeouts and retries can take longer when it does not answer).
    let deadline: Duration
    /// Turns a storage path (`image`) into a signed `image_url`; nil without storage.
    let images: PushImages?
    /// The addresses this server answers on (its host and port, and the LAN address a server
    /// on every address answers by): a webhook may not point at them.
    let ownAddresses: (hosts: Set<String>, port: Int)

    func register(in router: inout Router) {
        router.add(["POST"], "/functions/v1/send-test-push") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            let userID = try caller(exchange, "send-test-push sends to the caller's own devices")
            let body = try withImage(try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") }, exchange.access)
            let push = self.push
            exchange.later = Self.later(status: 200, deadline: deadline) { () async throws(PushError) -> JSONValue in
                try await push.sendTestPush(userID: userID, body: body)
            }
            return HTTPResponse(status: 200)
        }
        router.add(["POST"], "/functions/v1/send-push") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "send-push sends to any user's devices")
            let body = try withImage(try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") }, exchange.access)
            do throws(PushError) {
                let answer = try push.sendPush(body: body)
                // A dry run sends nothing: it answers at once, not "accepted".
                return .json(answer.objectValue?["dry_run"] == true ? 200 : 202, answer)
            } catch {
                throw Self.serverError(error)
            }
        }
        router.add(["GET"], "/functions/v1/schedules") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "scheduled sends are the server's")
            do throws(PushError) { return .json(200, try push.schedules()) } catch { throw Self.serverError(error) }
        }
        router.add(["GET", "DELETE"], "/functions/v1/schedules/{id}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "scheduled sends are the server's")
            let id = exchange.parameters["id"] ?? ""
            do throws(PushError) {
                return .json(200, exchange.request.method == "DELETE" ? try push.cancelSchedule(id: id) : try push.scheduleStatus(id: id))
            } catch {
                throw Self.serverError(error)
            }
        }
        router.add(["GET"], "/functions/v1/sends") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "sends are the server's")
            let limit = Int(exchange.request.queryValue("limit") ?? "") ?? 100
            do throws(PushError) { return .json(200, try push.sends(limit: limit)) } catch { throw Self.serverError(error) }
        }
        router.add(["GET"], "/functions/v1/sends/{id}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "a send's statistics are the server's")
            do throws(PushError) { return .json(200, try push.sendStatus(id: exchange.parameters["id"] ?? "")) } catch { throw Self.serverError(error) }
        }
        router.add(["GET"], "/functions/v1/templates") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "templates are the server's")
            do throws(PushError) { return .json(200, try push.templates()) } catch { throw Self.serverError(error) }
        }
        router.add(["GET", "PUT", "DELETE"], "/functions/v1/templates/{name}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "templates are the server's")
            let name = exchange.parameters["name"] ?? ""
            let body = exchange.request.method == "PUT" ? try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") } : .null
            do throws(PushError) {
                switch exchange.request.method {
                case "PUT":
                    let saved = try push.saveTemplate(name: name, body: body)
                    return .json(saved.created ? 201 : 200, saved.template)
                case "DELETE": return .json(200, try push.deleteTemplate(name: name))
                default: return .json(200, try push.template(name: name))
                }
            } catch {
                throw Self.serverError(error)
            }
        }
        router.add(["POST"], "/functions/v1/sends/{id}/update") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "a send is the server's to change")
            let body = try withImage(try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") }, exchange.access)
            do throws(PushError) { return .json(202, try push.updateSend(id: exchange.parameters["id"] ?? "", body: body)) } catch { throw Self.serverError(error) }
        }
        router.add(["POST"], "/functions/v1/sends/{id}/retract") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "a send is the server's to retract")
            do throws(PushError) { return .json(202, try push.retractSend(id: exchange.parameters["id"] ?? "")) } catch { throw Self.serverError(error) }
        }
        router.add(["GET", "POST"], "/functions/v1/webhooks") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "webhooks are the server's")
            let isPOST = exchange.request.method == "POST"
            let body = isPOST ? try exchange.json { .function(400, "invalid_request", "The request body is not JSON: \($0)") } : .null
            do throws(PushError) {
                guard isPOST else { return .json(200, try push.webhookEndpoints()) }
                return .json(201, try push.addWebhook(body: body, isOwnAddress: isOwnAddress))
            } catch {
                throw Self.serverError(error)
            }
        }
        router.add(["GET", "DELETE"], "/functions/v1/webhooks/{id}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "webhooks are the server's")
            let id = exchange.parameters["id"] ?? ""
            do throws(PushError) {
                return .json(200, exchange.request.method == "DELETE" ? try push.deleteWebhook(id: id) : try push.webhookEndpoint(id: id))
            } catch {
                throw Self.serverError(error)
            }
        }
        router.add(["GET"], "/functions/v1/webhooks/{id}/messages") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "webhooks are the server's")
            let id = exchange.parameters["id"] ?? ""
            do throws(PushError) {
                _ = try push.webhookEndpoint(id: id)
                return .json(200, try push.webhookMessages(endpoint: id))
            } catch {
                throw Self.serverError(error)
            }
        }
        router.add(["GET"], "/functions/v1/sends/{id}/webhooks") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            try serviceRole(exchange, "a send's statistics are the server's")
            let id = exchange.parameters["id"] ?? ""
            do throws(PushError) {
                _ = try push.sendStatus(id: id)
                return .json(200, try push.webhookMessages(send: id))
            } catch {
                throw Self.serverError(error)
            }
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

    /// Whether a URL reaches this server: its port, on a loopback name or address, an address of
    /// every interface, or one this server answers by.
    private func isOwnAddress(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased() ?? "http"
        guard (url.port ?? (scheme == "https" ? 443 : 80)) == ownAddresses.port, var host = url.host?.lowercased() else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return ["localhost", "::1", "::", "0.0.0.0", "0"].contains(host) || host.hasPrefix("127.") || host.hasSuffix(".localhost")
            || ownAddresses.hosts.contains(host)
    }

    /// The body with its `image` (a storage path the caller may read) as a signed `image_url`.
    private func withImage(_ body: JSONValue, _ access: Access) throws(ServerError) -> JSONValue {
        guard var fields = body.objectValue, let image = fields["image"], image != .null else { return body }
        guard let path = image.stringValue else { throw .function(400, "invalid_request", "image must be a storage path, bucket/name") }
        guard fields["image_url"] == nil || fields["image_url"] == .null else { throw .function(400, "invalid_request", "give image or image_url, not both") }
        guard let images else { throw .function(503, "storage_not_configured", "image needs storage (soar serve --storage-dir)") }
        fields["image_url"] = .string(try images.signedURL(path, as: access))
        fields["image"] = nil
        return .object(fields)
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

    /// The push service's async work, answered when it is done or at the deadline, whichever
    /// comes first; the HTTP worker thread serves other requests meanwhile. Past the deadline the
    /// work goes on alone (its dead tokens are still removed).
    private static func later(
        status: Int, deadline: Duration, _ work: @escaping @Sendable () async throws(PushError) -> JSONValue
    ) -> Later {
        Later { done in
            let answered = Locked(false)
            let answer: @Sendable (@escaping Later.Outcome) -> Void = { outcome in
                if answered.withLock({ first in defer { first = true }; return !first }) { done(outcome) }
            }
            let task = Task {
                do throws(PushError) {
                    let json = try await work()
                    answer { .success(.json(status, json)) }
                } catch {
                    answer { .failure(serverError(error)) }
                }
            }
            Task {
                try? await Task.sleep(for: deadline)
                answer {
                    .failure(.function(
                        504, "apns_timeout",
                        "APNs did not answer within \(deadline); the notifications may still be delivered, and dead tokens are still removed"))
                }
                _ = task  // the work is not cancelled: it finishes on its own
            }
        }
    }

    static func serverError(_ error: PushError) -> ServerError {
        .function(error.status, error.code, error.message)
    }
}
