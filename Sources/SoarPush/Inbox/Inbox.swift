import SoarAPNs
import SoarCore
import SoarStore

/// The server-side inbox: every notification sent to a user is kept as one row of
/// `notifications` (readable by its owner through the data API, newest first by `created_at`),
/// capped per user. The payload carries the row's id as `soar_id`, so the app can mark it opened.
enum Inbox {
    /// The payload key that carries the inbox row's id.
    static let idKey = "soar_id"

    /// Checks `notification` as APNs would once a device's `soar_id` (and, with `badge`, a
    /// badge) is in it, so a notification that could never be sent is refused before anything is
    /// stored.
    ///
    /// - Throws: ``PushError`` 400 saying what APNs would refuse.
    static func checkSendable(_ notification: APNsNotification, badge: Bool) throws(PushError) {
        var notification = notification
        notification.token = String(repeating: "0", count: 64)
        notification.payload.custom[idKey] = .string(RandomUUID.lowercase())
        if badge { notification.payload.aps.badge = 99_999 }
        do {
            _ = try APNsRequest(notification, bundleID: "com.example.app")
        } catch {
            throw .invalid(error.description)
        }
    }

    /// One row per user for `payload`, each with its own id in the payload.
    static func rows(_ payload: Payload, for users: [String]) -> [NewNotification] {
        let content: AlertContent? = if case .content(let content)? = payload.aps.alert { content } else { nil }
        let text: String? = if case .text(let text)? = payload.aps.alert { text } else { nil }
        let title = content?.fields["title"]?.stringValue
        let body = content?.fields["body"]?.stringValue ?? text
        // The payload is written once; each row's copy starts with its own `soar_id`.
        var object = payload.object
        object[idKey] = nil
        let rest = JSONValue.object(object).jsonText.dropFirst()
        return users.map { user in
            let id = RandomUUID.text(RandomUUID.timeOrdered())
            let text = "{\"\(idKey)\":\"\(id)\"" + (rest == "}" ? "" : ",") + rest
            return NewNotification(id: id, userID: user, title: title, body: body, payload: text)
        }
    }
}
