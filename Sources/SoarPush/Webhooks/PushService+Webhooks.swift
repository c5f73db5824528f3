import Foundation
import SoarCore
import SoarStore

/// `/functions/v1/webhooks`: the URLs that receive delivery events, and what became of each event.
extension PushService {
    /// The events a webhook may take.
    public static let webhookEvents = ["push.sent", "push.failed", "push.token_removed", "push.opened", "push.suppressed"]

    /// Adds an endpoint from `{url, events?, secret?}`; answers it with its secret.
    ///
    /// - Parameter isOwnAddress: whether a URL points at this server (refused: it would call itself).
    public func addWebhook(body: JSONValue, isOwnAddress: (URL) -> Bool) throws(PushError) -> JSONValue {
        guard case .object(let fields) = body else { throw PushError(400, "invalid_request", "The body must be an object with a url") }
        let known: Set<String> = ["url", "events", "secret"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw PushError(400, "invalid_request", "Unknown field \(unknown): a webhook has url, events and secret")
        }
        guard let text = fields["url"]?.stringValue, !text.isEmpty else { throw PushError(400, "invalid_request", "url is required") }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            throw PushError(400, "invalid_url", "url must be an http or https URL with a host, not \(text)")
        }
        if url.user != nil || url.password != nil { throw PushError(400, "invalid_url", "url must not carry a user or password") }
        if isOwnAddress(url) { throw PushError(400, "invalid_url", "url points at this server itself: its events would call it back") }
        var events: [String]?
        if let value = fields["events"], value != .null {
            guard let list = value.arrayValue, !list.isEmpty else { throw PushError(400, "invalid_request", "events must be a non-empty array of event types, or left out for all") }
            events = try list.map { item throws(PushError) in
                guard let name = item.stringValue, Self.webhookEvents.contains(name) else {
                    throw PushError(400, "unknown_event", "Unknown event \(item.jsonText): one of \(Self.webhookEvents.joined(separator: ", "))")
                }
                return name
            }
        }
        let secret = fields["secret"]?.stringValue ?? WebhookSignature.newSecret()
        guard WebhookSignature.isValid(secret: secret) else {
            throw PushError(400, "invalid_secret", "secret must be whsec_ followed by the base64 of 24 to 64 bytes (or left out for a new one)")
        }
        let endpoint = WebhookEndpoint(
            id: "wh_" + RandomUUID.lowercase().replacingOccurrences(of: "-", with: ""), url: text, secret: secret, events: events,
            createdAt: Timestamp.postgres(now()))
        do { try webhookStore.addWebhook(endpoint) } catch { throw PushError(503, "store_unavailable", error.message) }
        return Self.json(endpoint, secret: true)
    }

    /// Every endpoint, without its secret.
    public func webhookEndpoints() throws(PushError) -> JSONValue {
        do { return .array(try webhookStore.webhooks().map { Self.json($0, secret: false) }) } catch { throw PushError(503, "store_unavailable", error.message) }
    }

    /// One endpoint, with its secret.
    public func webhookEndpoint(id: String) throws(PushError) -> JSONValue {
        let all: [WebhookEndpoint]
        do { all = try webhookStore.webhooks() } catch { throw PushError(503, "store_unavailable", error.message) }
        guard let endpoint = all.first(where: { $0.id == id }) else { throw PushError(404, "not_found", "no webhook has the id \(id)") }
        return Self.json(endpoint, secret: true)
    }

    /// Removes an endpoint and its messages (those in flight are not recorded).
    public func deleteWebhook(id: String) throws(PushError) -> JSONValue {
        let existed: Bool
        do { existed = try webhookStore.deleteWebhook(id: id) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard existed else { throw PushError(404, "not_found", "no webhook has the id \(id)") }
        return .object(["id": .string(id), "deleted": true])
    }

    /// The newest 1,000 messages of a send or of an endpoint: each event, its state and attempts.
    public func webhookMessages(send: String? = nil, endpoint: String? = nil) throws(PushError) -> JSONValue {
        do {
            return .array(try webhookStore.webhookMessages(send: send, endpoint: endpoint, limit: 1000).map { message in
                .object([
                    "id": .string(message.id), "endpoint_id": .string(message.endpointID), "type": .string(message.type),
                    "send_id": message.sendID.map(JSONValue.string) ?? .null, "state": .string(message.state), "attempts": .int(message.attempts),
                    "next_attempt_at": message.nextAttemptAt.map(JSONValue.string) ?? .null, "last_status": message.lastStatus.map(JSONValue.int) ?? .null,
                    "last_error": message.lastError.map(JSONValue.string) ?? .null,
                    "payload": (try? JSONValue.read(Data(message.payload.utf8))) ?? .string(message.payload),
                ])
            })
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    private static func json(_ endpoint: WebhookEndpoint, secret: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(endpoint.id), "url": .string(endpoint.url), "created_at": .string(endpoint.createdAt),
            "events": endpoint.events.map { .array($0.map(JSONValue.string)) } ?? .array(webhookEvents.map(JSONValue.string)),
        ]
        if secret { fields["secret"] = .string(endpoint.secret) }
        return .object(fields)
    }
}
