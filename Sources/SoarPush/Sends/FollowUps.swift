import Foundation
import SoarCore
import SoarStore

/// Changing a notification already sent: an update (new text on every device it reached, the
/// inbox rows changed) or a retraction (the inbox rows removed, and a background push that makes
/// the app remove it from the device). Each is a send of its own to the devices the first one was
/// stored for, with its own statistics.
extension PushService {
    /// `POST /functions/v1/sends/<id>/update`: `title` and/or `body` (the rest of the send's
    /// payload kept), a whole `payload`, or a `template` with its `data`, and `image_url`, sent
    /// again under the send's collapse id (the device shows the new one in its place). Every
    /// locale gets the new text, unless it comes from a template with variants.
    ///
    /// - Throws: ``PushError`` 400 for a bad body, 404 for an unknown send, 503 as a send does.
    public func updateSend(id: String, body: JSONValue) throws(PushError) -> JSONValue {
        guard body.objectValue.map({ !$0.isEmpty }) == true else { throw .invalid("an update is a JSON object with title and body, or payload") }
        let allowed: Set<String> = ["title", "body", "payload", "image_url", "template", "data"]
        if let unknown = body.objectValue?.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .invalid("an update changes title, body, payload (or template and data) and image_url only, not \"\(unknown)\": it goes to the devices the send reached")
        }
        guard var changes = try expandingTemplate(body).objectValue else { throw .invalid("an update is a JSON object") }
        var request = try original(id)
        for key in ["send_at", "local_time", "dry_run", "badge"] { request[key] = nil }
        // New text replaces every locale's: the old variants would otherwise go out again.
        if changes["payload"] != nil || changes["title"] != nil || changes["body"] != nil { request["localized_alerts"] = nil }
        if changes["payload"] != nil {
            request["title"] = nil
            request["body"] = nil
        } else if changes["title"] != nil || changes["body"] != nil, var payload = request["payload"]?.objectValue {
            // A send made with a payload keeps it (sound, category, custom keys): only its alert's
            // title and body change.
            var aps = payload["aps"]?.objectValue ?? [:]
            var alert: [String: JSONValue] = aps["alert"]?.objectValue ?? aps["alert"]?.stringValue.map { ["body": .string($0)] } ?? [:]
            for key in ["title", "body"] { if let value = changes[key] { alert[key] = value } }
            aps["alert"] = .object(alert)
            payload["aps"] = .object(aps)
            request["payload"] = .object(payload)
            changes["title"] = nil
            changes["body"] = nil
        }
        request.merge(changes) { _, new in new }
        request["collapse_id"] = .string(collapseID(of: request, id))
        let checked = try read(.object(request))
        guard checked.pushType == .alert else { throw .invalid("only an alert can be updated (this send's push_type is \(checked.pushType.rawValue))") }
        let row = Inbox.row(checked.payload)
        return try storeFollowUp(of: id, request: request, inbox: .update(title: row.title, body: row.body, payload: row.json), as: "updates")
    }

    /// `POST /functions/v1/sends/<id>/retract`: the inbox rows removed, and a background push to
    /// every device the send reached, naming the notification's collapse id for the app to remove.
    ///
    /// - Throws: ``PushError`` 404 for an unknown send, 503 as a send does.
    public func retractSend(id: String) throws(PushError) -> JSONValue {
        let sent = try original(id)
        var request = sent.filter { ["user_ids", "tokens", "topic", "segment", "all", "environment"].contains($0.key) }
        request["payload"] = ["aps": ["content-available": 1], Payload.retractKey: .string(collapseID(of: sent, id))]
        request["push_type"] = "background"
        request["priority"] = 5
        _ = try read(.object(request))
        return try storeFollowUp(of: id, request: request, inbox: .remove, as: "retracts")
    }

    /// The send-push body send `id` was made with.
    private func original(_ id: String) throws(PushError) -> [String: JSONValue] {
        let text: String?
        do { text = try jobs.sendRequest(id: id) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard let text, let request = (try? JSONValue.read(Data(text.utf8)))?.objectValue else { throw PushError(404, "not_found", "no send has the id \(id)") }
        return request
    }

    /// The collapse id a send's notifications carried: the one it named, else its own id.
    private func collapseID(of request: [String: JSONValue], _ id: String) -> String {
        request["collapse_id"]?.stringValue ?? id
    }

    private func storeFollowUp(of id: String, request: [String: JSONValue], inbox: InboxChange, as relation: String) throws(PushError) -> JSONValue {
        guard let worker else {
            if case .notConfigured(let missing) = settings { throw .notConfigured(missing) }
            throw .notConfigured([])
        }
        let followUp = RandomUUID.lowercase()
        let count: Int?
        do { count = try jobs.storeFollowUp(id: followUp, of: id, request: JSONValue.object(request).jsonText, inbox: inbox) } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
        guard let count else { throw PushError(404, "not_found", "no send has the id \(id)") }
        worker.wake()
        return ["send_id": .string(followUp), relation: .string(id), "devices": .int(count), "status": .string("/functions/v1/sends/\(followUp)")]
    }
}
