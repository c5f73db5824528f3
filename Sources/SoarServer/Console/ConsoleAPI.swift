import Foundation
import SoarCore
import SoarHTTP
import SoarPush
import SoarStore

/// `/console/api/*`: what the console's pages show and do, for a signed-in administrator only
/// (the session cookie; the anon key, a service key and app users' tokens get nothing), every
/// change with the session's CSRF token in `x-csrf-token`.
struct ConsoleAPI: Sendable {
    let store: any Store
    let push: PushService
    let sessions: ConsoleSessions
    /// The APNs emulator's control plane, when one runs in this process.
    let emulator: (@Sendable (String, String, Data) -> (status: Int, body: Data))?
    let live: ConsoleLive
    let now: @Sendable () -> Date

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let path = String(request.path.dropFirst("/console/api".count))
        do throws(ConsoleError) {
            if path == "/session" && request.method == "POST" { return try signIn(request) }
            guard let session = try sessions.session(cookieHeader: request.headers["cookie"]) else {
                throw ConsoleError(401, "not_signed_in", "Sign in to the console first (an administrator: soar admin add EMAIL --password-stdin)")
            }
            if request.method != "GET" {
                guard let csrf = request.headers["x-csrf-token"], Self.same(csrf, session.csrf) else {
                    throw ConsoleError(403, "csrf", "This change needs the session's x-csrf-token header")
                }
            }
            switch (request.method, path) {
            case ("GET", "/session"): return .json(200, ["email": .string(session.admin.email), "csrf": .string(session.csrf)])
            case ("DELETE", "/session"):
                var response = HTTPResponse.json(200, ["signed_out": true])
                response.headers.append(("set-cookie", sessions.signOut(session)))
                return response
            case ("GET", "/overview"): return .json(200, try overview())
            case ("GET", "/users"): return .json(200, try users(matching: request.queryValue("q")))
            case ("GET", "/devices"): return .json(200, try devices(matching: request.queryValue("q")))
            case ("GET", "/sends"): return .json(200, try pushed { () throws(PushError) in try push.sends(limit: 100) })
            case ("GET", "/realtime"): return try live.upgrade(request)
            case ("POST", "/compose"): return .json(202, try compose(request))
            case ("POST", "/validate"): return .json(200, validate(request.body))
            case ("GET", "/tables"): return .json(200, tables())
            case ("GET", "/mailbox"): return .json(200, try mailbox())
            case ("GET", "/storage"): return .json(200, try storage(nil, prefix: ""))
            case (_, "/emulator/deliveries"), (_, "/emulator/stats"), (_, "/emulator/faults"):
                // Read it, or (with the CSRF token, checked above) clear the deliveries and set or clear faults.
                guard let emulator else {
                    throw ConsoleError(503, "no_emulator", "No APNs emulator runs in this server: soar serve --with-emulator")
                }
                let answer = emulator(request.method, String(path.dropFirst("/emulator".count)), request.body)
                // The emulator's refusals ({"error": why}) in the console's own shape.
                if answer.status >= 400 {
                    let why = (try? JSONValue.read(answer.body))?.objectValue?["error"]?.stringValue ?? "the APNs emulator refused this"
                    throw ConsoleError(answer.status, "emulator_refused", why)
                }
                return HTTPResponse(status: answer.status, headers: [("content-type", "application/json")], body: answer.body)
            default:
                if request.method == "GET", path.hasPrefix("/sends/") { return .json(200, try pushed { () throws(PushError) in try push.sendStatus(id: String(path.dropFirst("/sends/".count))) }) }
                if path.hasPrefix("/users/") { return .json(200, try user(request.method, String(path.dropFirst("/users/".count)))) }
                if request.method == "GET", path.hasPrefix("/tables/") {
                    return .json(200, try table(String(path.dropFirst("/tables/".count)), offset: Int(request.queryValue("offset") ?? "") ?? 0))
                }
                if request.method == "GET", path.hasPrefix("/storage/") {
                    return .json(200, try storage(String(path.dropFirst("/storage/".count)), prefix: request.queryValue("prefix") ?? ""))
                }
                throw ConsoleError(404, "not_found", "No console API at \(request.method) \(request.path)")
            }
        } catch {
            return .json(error.status, ["error": .string(error.code), "message": .string(error.message)])
        }
    }

    private func signIn(_ request: HTTPRequest) throws(ConsoleError) -> HTTPResponse {
        // Only the console's own page signs in: JSON (a form or plain text from another site would
        // need no preflight) and, when the browser says where from, from the console's origin.
        guard (request.headers["content-type"] ?? "").lowercased().hasPrefix("application/json") else {
            throw ConsoleError(415, "invalid_request", "Sign in with a JSON body")
        }
        if Self.origin(of: request) == false {
            throw ConsoleError(403, "cross_origin", "Sign-ins come from the console's own page")
        }
        guard let body = try? JSONValue.read(request.body), let email = body.objectValue?["email"]?.stringValue,
            let password = body.objectValue?["password"]?.stringValue
        else { throw ConsoleError(400, "invalid_request", "Send {\"email\": …, \"password\": …}") }
        let (session, cookie) = try sessions.signIn(email: email, password: password, from: request.remoteAddress)
        var response = HTTPResponse.json(200, ["email": .string(session.admin.email), "csrf": .string(session.csrf)])
        response.headers.append(("set-cookie", cookie))
        return response
    }

    /// Users, devices by environment and app, sends today, and the recent sends' outcomes.
    private func overview() throws(ConsoleError) -> JSONValue {
        let users = try stored { () throws(StoreError) in try store.users(offset: 0, limit: 1).total }
        // Counted by the database, grouped: every device, however many.
        let counts = try stored { () throws(StoreError) in try store.deviceCounts() }
        var environments: [String: Int] = [:], bundles: [String: Int] = [:]
        for count in counts {
            environments[count.environment ?? "unknown", default: 0] += count.count
            bundles[count.bundleID ?? "default", default: 0] += count.count
        }
        let sends = try pushed { () throws(PushError) in try push.sends(limit: 100) }.arrayValue ?? []
        let today = String(Timestamp.postgres(now()).prefix(10))
        var delivered = 0, failed = 0
        var failedByReason: [String: Int] = [:], removedByReason: [String: Int] = [:]
        for send in sends {
            delivered += send.objectValue?["delivered"]?.intValue ?? 0
            failed += send.objectValue?["failed"]?.intValue ?? 0
            for (reason, count) in send.objectValue?["reasons"]?.objectValue ?? [:] { failedByReason[reason, default: 0] += count.intValue ?? 0 }
            for (reason, count) in send.objectValue?["removed_by_reason"]?.objectValue ?? [:] { removedByReason[reason, default: 0] += count.intValue ?? 0 }
        }
        let recent: [JSONValue] = sends.prefix(30).reversed().map { send in
            .object(["created_at": send.objectValue?["created_at"] ?? .null, "delivered": send.objectValue?["delivered"] ?? .int(0), "failed": send.objectValue?["failed"] ?? .int(0)])
        }
        let rate: JSONValue = delivered + failed == 0 ? .null : .double(Double(delivered) / Double(delivered + failed))
        var answer: [String: JSONValue] = ["users": .int(users), "devices": .int(counts.reduce(0) { $0 + $1.count }), "success_rate": rate, "recent": .array(recent)]
        answer["devices_by_environment"] = .object(environments.mapValues(JSONValue.int))
        answer["devices_by_bundle"] = .object(bundles.mapValues(JSONValue.int))
        answer["sends_today"] = .int(sends.filter { ($0.objectValue?["created_at"]?.stringValue ?? "").hasPrefix(today) }.count)
        answer["failures_by_reason"] = .object(failedByReason.mapValues(JSONValue.int))
        answer["tokens_removed_by_reason"] = .object(removedByReason.mapValues(JSONValue.int))
        return .object(answer)
    }

    private func users(matching query: String?) throws(ConsoleError) -> JSONValue {
        let page = try stored { () throws(StoreError) in try store.users(offset: 0, limit: 1000).users }
        let wanted = (query ?? "").lowercased()
        return .array(page.filter { wanted.isEmpty || ($0.email ?? "").lowercased().contains(wanted) || $0.id.hasPrefix(wanted) }.map { user in
            ["id": .string(user.id), "email": user.email.map(JSONValue.string) ?? .null, "created_at": .string(user.createdAt),
             "last_sign_in_at": user.lastSignInAt.map(JSONValue.string) ?? .null]
        })
    }

    private func devices(matching query: String?) throws(ConsoleError) -> JSONValue {
        let wanted = (query ?? "").lowercased()
        let emails = Dictionary(try stored { () throws(StoreError) in try store.users(offset: 0, limit: 1000).users }.map { ($0.id, $0.email ?? "") }, uniquingKeysWith: { first, _ in first })
        return .array(try deviceRows(limit: 500).compactMap { device -> JSONValue? in
            var device = device
            let user = device["user_id"]?.stringValue ?? ""
            device["email"] = emails[user].map(JSONValue.string) ?? .null
            let token = device["token"]?.stringValue ?? ""
            guard wanted.isEmpty || token.hasPrefix(wanted) || user.hasPrefix(wanted) || (emails[user] ?? "").lowercased().contains(wanted) else { return nil }
            return .object(device)
        })
    }

    /// `device_tokens` as the service role reads it, newest first (empty when the app has none).
    func deviceRows(limit: Int) throws(ConsoleError) -> [[String: JSONValue]] {
        guard let table = store.tables["device_tokens"] else { return [] }
        // Rows come with their columns in the table's order.
        let names: Set<String> = ["token", "user_id", "platform", "environment", "bundle_id", "updated_at"]
        let wanted = table.columns.map(\.name).filter(names.contains)
        var query = RowQuery()
        query.outputs = wanted.map { RowQuery.Output(column: $0, key: $0) }
        if table.column("updated_at") != nil { query.order = [RowQuery.Order(column: "updated_at", descending: true, nullsFirst: false)] }
        query.limit = limit
        let rows = try stored { () throws(StoreError) in try store.select(table, query, as: .service, counting: false).rows }
        return rows.map { row in
            Dictionary(uniqueKeysWithValues: wanted.enumerated().map { index, name in
                (name, row.indices.contains(index) ? (table.column(name)?.json(row[index]) ?? .null) : .null)
            })
        }
    }

    /// `{audience: "all" or an email, title, body, link}`: send-push to everyone or that user's devices.
    private func compose(_ request: HTTPRequest) throws(ConsoleError) -> JSONValue {
        guard let fields = (try? JSONValue.read(request.body))?.objectValue else { throw ConsoleError(400, "invalid_request", "The body must be JSON") }
        let audience = (fields["audience"]?.stringValue ?? "").trimmingCharacters(in: .whitespaces)
        guard !audience.isEmpty else { throw ConsoleError(400, "invalid_request", "audience: \"all\" or a user's email") }
        var body: [String: JSONValue] = [:]
        if audience == "all" {
            body["all"] = true
        } else {
            guard let user = try stored({ () throws(StoreError) in try store.user(email: audience.lowercased()) }) else {
                throw ConsoleError(404, "unknown_user", "No user has the email \(audience)")
            }
            body["user_ids"] = [.string(user.id)]
        }
        var alert: [String: JSONValue] = [:]
        for key in ["title", "body"] { if let text = fields[key]?.stringValue, !text.isEmpty { alert[key] = .string(text) } }
        guard !alert.isEmpty else { throw ConsoleError(400, "invalid_request", "A notification needs a title or a body") }
        var payload: [String: JSONValue] = ["aps": ["alert": .object(alert), "sound": "default"]]
        if let link = fields["link"]?.stringValue, !link.isEmpty { payload["deeplink"] = .string(link) }
        if let image = fields["image"]?.stringValue, !image.isEmpty {
            guard let url = URL(string: image), url.scheme == "https", url.host != nil else {
                throw ConsoleError(400, "invalid_request", "image: an https URL (iOS loads a notification's picture over HTTPS only)")
            }
            body["image_url"] = .string(image)
        }
        body["payload"] = .object(payload)
        guard case .object(var answer) = try pushed({ () throws(PushError) in try push.sendPush(body: .object(body)) }) else { return .null }
        // Where the console itself reads the send's progress (send-push names the service role's).
        if let id = answer["send_id"]?.stringValue { answer["status"] = .string("/console/api/sends/\(id)") }
        return .object(answer)
    }

    /// A payload checked as `soar payload validate` checks it (an alert's): valid or why not, its
    /// size against the limit, and where a tap goes by the seed app's routes.
    func validate(_ body: Data) -> JSONValue {
        guard let object = (try? JSONValue.read(body))?.objectValue else { return ["valid": false, "error": "The payload is not a JSON object"] }
        let payload: Payload
        do { payload = try Payload(object: object) } catch { return ["valid": false, "error": .string(error.description)] }
        var answer: [String: JSONValue] = ["size": .int(payload.size), "limit": .int(PushType.alert.payloadLimit)]
        do {
            _ = try payload.checkedData(for: .alert)
            answer["valid"] = true
        } catch {
            answer["valid"] = false
            answer["error"] = .string(error.description)
        }
        let routes = RouteTable.seedApp
        if let route = routes.route(for: payload) { answer["route"] = .string("\(route.name) \(routes.path(for: route) ?? "/")") }
        return .object(answer)
    }

    func stored<T>(_ work: () throws(StoreError) -> T) throws(ConsoleError) -> T {
        do { return try work() } catch { throw ConsoleError(503, "store_unavailable", error.message) }
    }

    private func pushed<T>(_ work: () throws(PushError) -> T) throws(ConsoleError) -> T {
        do { return try work() } catch { throw ConsoleError(error.status, error.code, error.message) }
    }

    /// Whether the browser says the request comes from the console's own origin; nil when it
    /// cannot be told (no `Origin` or no `Host` header).
    static func origin(of request: HTTPRequest) -> Bool? {
        guard let origin = request.headers["origin"], let host = request.headers["host"] else { return nil }
        return origin.hasSuffix("//" + host)
    }

    /// Compared in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
