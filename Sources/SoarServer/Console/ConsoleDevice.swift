import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarStore

/// A notification the APNs emulator recorded for one token.
public struct EmulatedDelivery: Sendable {
    public let apnsID: String
    public let payload: JSONValue
    public let time: Date

    public init(apnsID: String, payload: JSONValue, time: Date) {
        self.apnsID = apnsID
        self.payload = payload
        self.time = time
    }
}

/// `/console/device/api/*`: what the simulated device's tab cannot ask the API itself, which it
/// otherwise uses as an app does (GoTrue's sign-in, `device_tokens`, `notifications`): where the
/// API is, and the notifications the APNs emulator recorded for the tab's token, each with the
/// route a tap opens, resolved by the same rules as `PushRoute`. Only the token's owner, signed
/// in, reads its notifications.
struct ConsoleDevice: Sendable {
    let store: any Store
    let auth: AuthService
    let apiURL: String
    let anonKey: String
    let routes: RouteTable
    let deliveries: (@Sendable (String) -> [EmulatedDelivery])?

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let path = String(request.path.dropFirst("/console/device/api".count))
        switch path {
        case "/config":
            return .json(200, ["api_url": .string(apiURL), "anon_key": .string(anonKey), "emulator": .bool(deliveries != nil)])
        case "/deliveries":
            return notifications(request)
        default:
            return .json(404, ["error": "not_found", "message": .string("No device API at \(request.path)")])
        }
    }

    /// `?token=HEX&after=N`: the token's notifications after the first N, for its owner.
    private func notifications(_ request: HTTPRequest) -> HTTPResponse {
        guard let deliveries else {
            return .json(503, ["error": "no_emulator", "message": "The simulated device needs the APNs emulator: soar serve --with-emulator"])
        }
        let token = (request.queryValue("token") ?? "").lowercased()
        let after = max(0, Int(request.queryValue("after") ?? "") ?? 0)
        let bearer = (request.headers["authorization"] ?? "").split(separator: " ").last.map(String.init) ?? ""
        guard let verified = try? auth.tokens.verify(bearer, now: auth.now()), let user = verified.access.userID,
            verified.sessionID.map({ (try? auth.sessionLive($0)) == true }) ?? true
        else {
            return .json(401, ["error": "not_signed_in", "message": "Sign the device in first"])
        }
        guard owns(token, user: user) else {
            return .json(403, ["error": "not_your_device", "message": "That token is not a device of the signed-in user alone"])
        }
        // Only the user's own notifications: those whose inbox row the user may read (an earlier
        // holder's, sent to this token before, stay theirs).
        let list = own(deliveries(token), access: verified.access)
        let fresh = list.count > after ? Array(list[after...]) : []
        return .json(200, ["count": .int(list.count), "notifications": .array(fresh.map(describe))])
    }

    /// Whether `token` is `user`'s alone: every row of `device_tokens` naming it, read as the
    /// service role, is theirs (anyone may write a row naming any token).
    private func owns(_ token: String, user: String) -> Bool {
        guard !token.isEmpty, let table = store.tables["device_tokens"], table.column("user_id") != nil else { return false }
        var query = RowQuery()
        query.condition = .compare(column: "token", op: .eq, operand: .value(.text(token)))
        query.outputs = [RowQuery.Output(column: "user_id", key: "user_id")]
        guard let rows = try? store.select(table, query, as: .service, counting: false).rows, !rows.isEmpty else { return false }
        return rows.allSatisfy { row in row.first.flatMap { table.column("user_id")?.json($0).stringValue } == user }
    }

    /// The deliveries whose inbox row (the payload's `soar_id`) `access` may read.
    private func own(_ deliveries: [EmulatedDelivery], access: Access) -> [EmulatedDelivery] {
        let ids = deliveries.compactMap { $0.payload.objectValue?[Payload.inboxIDKey]?.stringValue }
        guard !ids.isEmpty, let table = store.tables["notifications"] else { return [] }
        var query = RowQuery()
        query.condition = .compare(column: "id", op: .in, operand: .list(ids.map(SQLValue.text)))
        query.outputs = [RowQuery.Output(column: "id", key: "id")]
        let rows = (try? store.select(table, query, as: access, counting: false).rows) ?? []
        let readable = Set(rows.compactMap { row in row.first.flatMap { table.column("id")?.json($0).stringValue } })
        return deliveries.filter { $0.payload.objectValue?[Payload.inboxIDKey]?.stringValue.map(readable.contains) ?? false }
    }

    /// A delivery as the tab shows it: the alert, the badge, the inbox id and the route.
    private func describe(_ delivery: EmulatedDelivery) -> JSONValue {
        let payload = (try? Payload(object: delivery.payload.objectValue ?? [:])) ?? Payload()
        let alert = payload.aps.fields["alert"]
        var fields: [String: JSONValue] = [
            "apns_id": .string(delivery.apnsID), "time": .string(Timestamp.format(delivery.time)), "payload": delivery.payload,
            "title": alert?.objectValue?["title"] ?? .null, "body": alert?.objectValue?["body"] ?? alert?.stringValue.map(JSONValue.string) ?? .null,
            "badge": payload.aps.badge.map(JSONValue.int) ?? .null, "sound": payload.aps.fields["sound"] ?? .null,
            "soar_id": payload.custom[Payload.inboxIDKey] ?? .null,
        ]
        if let route = routes.route(for: payload) {
            fields["route"] = ["name": .string(route.name), "path": .string(routes.path(for: route) ?? "/")]
        } else {
            fields["route"] = ["name": "notifications", "path": "/notifications"]
        }
        return .object(fields)
    }
}
