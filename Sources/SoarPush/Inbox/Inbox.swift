import Foundation
import SoarAPNs
import SoarCore
import SoarStore

/// The server-side inbox: every notification sent to a user is kept as one row of
/// `notifications` (readable by its owner through the data API, newest first by `created_at`),
/// capped per user. The payload carries the row's id as `soar_id`, so the app can mark it opened.
enum Inbox {
    /// Checks `notification` as APNs would once a device's `soar_id` (and, with `badge`, a
    /// badge) is in it, so a notification that could never be sent is refused before anything is
    /// stored.
    ///
    /// - Throws: ``PushError`` 400 saying what APNs would refuse.
    static func checkSendable(_ notification: APNsNotification, badge: Bool) throws(PushError) {
        var notification = notification
        notification.token = String(repeating: "0", count: 64)
        notification.payload.custom[Payload.inboxIDKey] = .string(RandomUUID.lowercase())
        if badge { notification.payload.aps.badge = 99_999 }
        do {
            _ = try APNsRequest(notification, bundleID: "com.example.app")
        } catch {
            throw .invalid(error.description)
        }
    }

    /// One row per user for `payload`, each with its own id in the payload.
    static func rows(_ payload: Payload, for users: [String]) -> [NewNotification] {
        let (title, body, json) = row(payload)
        // The payload is written once; each row's copy starts with its own `soar_id`.
        let splice = IDSplice(json)
        return users.map { user in
            let id = RandomUUID.text(RandomUUID.timeOrdered())
            return NewNotification(id: id, userID: user, title: title, body: body, payload: splice.text(withID: id))
        }
    }

    /// What an inbox row keeps of `payload`: its title, its body, and its JSON without a `soar_id`.
    static func row(_ payload: Payload) -> (title: String?, body: String?, json: String) {
        let content: AlertContent? = if case .content(let content)? = payload.aps.alert { content } else { nil }
        let text: String? = if case .text(let text)? = payload.aps.alert { text } else { nil }
        var object = payload.object
        object[Payload.inboxIDKey] = nil
        return (content?.fields["title"]?.stringValue, content?.fields["body"]?.stringValue ?? text, JSONValue.object(object).jsonText)
    }

    /// A payload's JSON with a `soar_id` in front of its other keys, for many ids: the JSON is
    /// written once, and each copy is the id between its two parts.
    struct IDSplice: Sendable {
        private let head = "{\"\(Payload.inboxIDKey)\":\""
        private let tail: String

        /// - Parameter json: the payload's JSON object, without a `soar_id`.
        init(_ json: String) {
            let rest = json.dropFirst()
            tail = "\"" + (rest.first == "}" ? "" : ",") + rest
        }

        func text(withID id: String) -> String { head + id + tail }

        /// As ``text(withID:)``, written straight into one buffer.
        func json(withID id: String) -> Data {
            var data = Data(capacity: head.utf8.count + id.utf8.count + tail.utf8.count)
            data.append(contentsOf: head.utf8)
            data.append(contentsOf: id.utf8)
            data.append(contentsOf: tail.utf8)
            return data
        }
    }
}
