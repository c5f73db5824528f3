import Foundation
import SoarAPNs
import SoarCore
import SoarStore

/// The body of `send-push` (service role): whom to send to, and the notification.
///
/// `{"user_ids": [...]}`, `{"tokens": [...]}`, `{"topic": "news"}` or `{"all": true}`; then `{"title", "body"}` or a whole
/// `{"payload": {"aps": …}}`, and optionally `push_type`, `priority` (10, 5, 1), `collapse_id`,
/// `expiration` (Unix seconds; 0: now or never), `environment` (for devices whose own is not known)
/// and `"badge": "unread"`; `kind` (the payload's `kind`, which users mute in their preferences)
/// and `image` / `image_url` (a picture).
public struct SendPushRequest: Sendable {
    public enum Audience: Sendable, Equatable {
        case users([String])
        case tokens([String])
        /// The devices of every user who follows the topic (`push_topic_subscriptions`).
        case topic(String)
        /// The devices a filter of the data API's syntax on `device_tokens` matches (as written, and read).
        case segment(String, RowQuery.Condition?)
        case everyone
    }

    public var audience: Audience
    public var payload: Payload
    public var pushType = PushType.alert
    public var priority: APNsPriority?
    public var collapseID: String?
    public var expiration: Date?
    public var environment: PushEnvironment?
    /// What users mute in their preferences (`notification_preferences`); in the payload as `kind`.
    public var kind: String?
    /// `"dry_run": true`: count who would receive it, send nothing.
    public var dryRun = false
    /// `rate_limit`: at most this many devices a second; nil: as fast as APNs takes them.
    public var rateLimit: Int?
    public static let rateLimits = 1...100_000
    /// `send_at` (an ISO 8601 instant): stored, and sent then (at once when it has passed).
    public var sendAt: Date?
    /// `local_time` (`"09:00"`): sent at the next such time in each device's own time zone.
    public var localTime: (hour: Int, minute: Int)?
    /// `time_zones`: only the devices in these zones (`null` in the list: those with none).
    public var timeZones: [String?]?

    /// `within_users`: only these users' devices (what quiet hours held, sent when they end).
    public var withinUsers: [String]?

    /// What ``timeZones`` and ``withinUsers`` keep of the audience, as a condition on `device_tokens`.
    public var restriction: RowQuery.Condition? {
        let users: RowQuery.Condition? = withinUsers.map { .compare(column: "user_id", op: .in, operand: .list($0.map(SQLValue.text))) }
        guard let timeZones else { return users }
        let named = timeZones.compactMap { $0 }
        var any: [RowQuery.Condition] = named.isEmpty ? [] : [.compare(column: "time_zone", op: .in, operand: .list(named.map(SQLValue.text)))]
        if timeZones.contains(where: { $0 == nil }) { any.append(.compare(column: "time_zone", op: .is, operand: .null)) }
        return users.map { .all([$0, .any(any)]) } ?? .any(any)
    }
    /// `"badge": "unread"`: each device's `aps.badge` is its user's unread inbox count.
    public var badgeUnread = false
    /// `localized_alerts` (what a template becomes): locale → `aps.alert`, each device getting the
    /// one its locale matches (``LocaleMatch``) and the rest ``payload``'s.
    public var localizedAlerts: [String: JSONValue] = [:]

    /// - Throws: ``PushError`` 400 naming the field that is missing, of the wrong type or out of range.
    public init(json: JSONValue) throws(PushError) {
        guard let object = json.objectValue else { throw .invalid("the body must be a JSON object") }
        let known: Set<String> = [
            "user_ids", "tokens", "topic", "segment", "dry_run", "rate_limit", "send_at", "local_time", "time_zones", "within_users", "all", "title", "body", "payload", "push_type", "priority", "collapse_id", "expiration", "environment", "badge", "image_url", "kind", "localized_alerts", "template", "data",
        ]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalid("unknown field \"\(unknown)\"; the fields are \(known.sorted().joined(separator: ", "))")
        }
        let given = ["user_ids", "tokens", "topic", "segment", "all"].filter { object[$0] != nil && object[$0] != .null }
        guard given.count == 1 else { throw .invalid("say whom to send to with exactly one of user_ids, tokens, topic, segment or \"all\": true") }
        switch given[0] {
        case "user_ids":
            let ids = try Self.strings(object["user_ids"], "user_ids")
            for id in ids where RandomUUID.parse(id) == nil { throw .invalid("user_ids holds \"\(id)\", which is not a uuid") }
            audience = .users(ids.map { $0.lowercased() })
        case "tokens":
            let tokens = try Self.strings(object["tokens"], "tokens")
            do {
                audience = .tokens(try tokens.map { (token) throws(PushTokenError) in try PushToken.normalizedHex(token) })
            } catch {
                throw .invalid("tokens: \(error.description)")
            }
        case "segment":
            guard let filter = object["segment"]?.stringValue, !filter.isEmpty, filter.count <= 4096 else {
                throw .invalid("segment must be filters of the data API's syntax on device_tokens, e.g. \"environment=eq.production&locale=like.fr*\"")
            }
            audience = .segment(filter, nil)
        case "topic":
            guard let topic = object["topic"]?.stringValue, PushTopic.valid(topic) else {
                throw .invalid("topic must be 1 to 128 of A-Z a-z 0-9 _ . : -")
            }
            audience = .topic(topic)
        default:
            guard object["all"] == .bool(true) else { throw .invalid("all must be true") }
            audience = .everyone
        }
        func text(_ name: String) throws(PushError) -> String? {
            switch object[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw .invalid("\(name) must be a string")
            }
        }
        guard object["template"] == nil || object["template"] == .null else { throw .invalid("template is read by the server's send-push only") }
        guard object["data"] == nil || object["data"] == .null else { throw .invalid("data gives a template's variables: it goes with template") }
        if let value = object["payload"], value != .null {
            guard try text("title") == nil, try text("body") == nil else { throw .invalid("give payload or title and body, not both") }
            guard let fields = value.objectValue else { throw .invalid("payload must be a JSON object with \"aps\"") }
            do { payload = try Payload(object: fields) } catch { throw .invalid("payload: \(error.description)") }
            guard payload.custom[Payload.inboxIDKey] == nil else { throw .invalid("payload: \"\(Payload.inboxIDKey)\" is the server's (each user's inbox row id)") }
        } else {
            guard let title = try text("title"), let body = try text("body") else { throw .invalid("give title and body, or a payload") }
            payload = .alert(title: title, body: body)
        }
        if let image = try PushImage.url(text("image_url")) { PushImage.attach(image, to: &payload) }
        let named = try PushKind.checked(text("kind"))
        let carried = payload.custom["kind"]?.stringValue
        if let named, let carried, named != carried { throw .invalid("kind is \"\(named)\" but payload.kind is \"\(carried)\"") }
        kind = try PushKind.checked(named ?? carried)
        if let kind { payload.custom["kind"] = .string(kind) }
        if let name = try text("push_type") {
            guard let type = PushType.all.first(where: { $0.rawValue == name }) else {
                throw .invalid("push_type must be one of \(PushType.all.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
            }
            pushType = type
        }
        if let value = object["priority"], value != .null {
            guard let number = value.intValue, let priority = APNsPriority(rawValue: number) else { throw .invalid("priority must be 10, 5 or 1") }
            self.priority = priority
        }
        collapseID = try text("collapse_id")
        if let value = object["expiration"], value != .null {
            guard let seconds = value.intValue, seconds >= 0, seconds <= Int(UInt32.max) else {
                throw .invalid("expiration must be Unix seconds, 0 to 4294967295 (0: now or never)")
            }
            expiration = Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        if let name = try text("environment") {
            guard let environment = PushEnvironment(named: name) else { throw .invalid("environment must be \"sandbox\" or \"production\", not \"\(name)\"") }
            self.environment = environment
        }
        if let text = try text("send_at") {
            // An instant, not a wall-clock time: its offset (`Z`, `+02:00`) must be written.
            let offset = text.hasSuffix("Z") || text.hasSuffix("z") || text.range(of: #"[+-]\d{2}:?\d{2}$"#, options: .regularExpression) != nil
            guard offset, let instant = Timestamp.parse(text) else { throw .invalid("send_at must be an ISO 8601 instant with its offset, e.g. 2026-12-24T09:00:00Z, not \"\(text.prefix(40))\"") }
            sendAt = instant
        }
        if let text = try text("local_time") {
            let parts = text.split(separator: ":").map { Int($0) }
            guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0..<24).contains(hour), (0..<60).contains(minute), text.count == 5 else {
                throw .invalid("local_time must be HH:MM on a 24-hour clock, e.g. \"09:00\", not \"\(text.prefix(20))\"")
            }
            guard sendAt == nil else { throw .invalid("give send_at or local_time, not both") }
            localTime = (hour, minute)
        }
        if let zones = object["time_zones"], zones != .null {
            guard let items = zones.arrayValue, !items.isEmpty, items.count <= 1000,
                items.allSatisfy({ $0 == .null || ($0.stringValue.map { !$0.isEmpty && $0.count <= 64 } ?? false) })
            else { throw .invalid("time_zones must be a list of time zone names (null for devices without one)") }
            timeZones = items.map(\.stringValue)
        }
        if let value = object["within_users"], value != .null {
            let ids = try Self.strings(value, "within_users")
            for id in ids where RandomUUID.parse(id) == nil { throw .invalid("within_users holds \"\(id)\", which is not a uuid") }
            withinUsers = ids.map { $0.lowercased() }
        }
        if let flag = object["dry_run"], flag != .null {
            guard let value = flag.boolValue else { throw .invalid("dry_run must be true or false") }
            dryRun = value
        }
        if let value = object["rate_limit"], value != .null {
            guard let rate = value.intValue, Self.rateLimits.contains(rate) else {
                throw .invalid("rate_limit must be a whole number of devices a second, 1 to 100000")
            }
            rateLimit = rate
        }
        if let badge = object["badge"], badge != .null {
            guard badge == .string("unread") else { throw .invalid("badge must be \"unread\" (a fixed badge goes in payload.aps.badge)") }
            badgeUnread = true
        }
        if let value = object["localized_alerts"], value != .null {
            guard let alerts = value.objectValue, alerts.count <= 200 else { throw .invalid("localized_alerts must be an object of locales' alerts, 200 at most") }
            for (locale, alert) in alerts {
                guard let key = LocaleMatch.normalized(locale) else { throw .invalid("localized_alerts: \"\(locale)\" is not a locale such as en, fr-CA or zh-Hant-TW") }
                guard alert.objectValue != nil || alert.stringValue != nil else { throw .invalid("localized_alerts.\(locale) must be an alert, as aps.alert is") }
                var fields = payload.aps.fields
                fields["alert"] = alert
                do { _ = try APS(validating: fields) } catch { throw .invalid("localized_alerts.\(locale): \(error.description)") }
                localizedAlerts[key] = alert
                do throws(PushError) {
                    try Inbox.checkSendable(notification(variant: key), badge: badgeUnread)
                } catch {
                    throw .invalid("localized_alerts.\(locale): \(error.message)")
                }
            }
        }
        try Inbox.checkSendable(notification, badge: badgeUnread)
    }

    /// The payload a device of this locale variant gets (nil: the default).
    public func payload(variant: String?) -> Payload {
        guard let variant, let alert = localizedAlerts[variant] else { return payload }
        var localized = payload
        localized.aps.fields["alert"] = alert
        return localized
    }

    /// ``notification`` for a locale variant.
    public func notification(variant: String?) -> APNsNotification {
        var notification = notification
        if variant != nil { notification.payload = payload(variant: variant) }
        return notification
    }

    /// The notification every device gets (token, topic and apns-id are each device's).
    public var notification: APNsNotification {
        APNsNotification(token: "", payload: payload, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID)
    }

    private static func strings(_ value: JSONValue?, _ name: String) throws(PushError) -> [String] {
        guard let items = value?.arrayValue, !items.isEmpty else { throw .invalid("\(name) must be a non-empty array of strings") }
        var strings: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw .invalid("\(name) must be a non-empty array of strings") }
            strings.append(text)
        }
        return strings
    }
}
