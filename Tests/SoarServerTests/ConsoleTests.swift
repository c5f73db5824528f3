import Foundation
import SoarAuth
import SoarCore
import SoarEmulator
import SoarPush
import SoarServer
import SoarStore
import SoarTesting
import Testing

/// The console's server and API: administrators sign in with a cookie session, every change
/// needs its CSRF token, nothing else gets in (the anon key, the service key, app users' tokens,
/// another server's cookie), failed sign-ins are limited, and its pages allow nothing from elsewhere.
@Suite(.timeLimit(.minutes(2))) struct ConsoleTests {
    static let password = "a-console-password"

    /// A server with its console and one administrator; sending to `emulator` when given, whose
    /// control plane the console's Emulator page then reaches (as `soar serve --with-emulator`).
    static func fixture(emulator: EmulatorFixture? = nil) async throws -> ServerFixture {
        let control = emulator.map { emulator in
            { @Sendable (method: String, path: String, body: Data) in emulator.emulator.control.handle(method: method, path: path, body: body) }
        }
        let fixture = try await ServerFixture.start(configure: { $0.consolePort = 0; $0.emulatorControl = control }, push: try emulator?.pushSettings() ?? PushSettings.unset)
        _ = try fixture.server.store.addAdmin(email: "admin@example.com", passwordHash: try PasswordHasher(memoryKiB: 64, passes: 1).hash(password))
        return fixture
    }

    /// A request to the console's own port, with no key unless `headers` has one.
    static func console(
        _ fixture: ServerFixture, _ method: String, _ path: String, cookie: String? = nil, csrf: String? = nil, headers: [String: String] = [:], body: String? = nil
    ) async throws -> ServerFixture.Answer {
        let origin = try #require(fixture.server.consoleURL).replacingOccurrences(of: "/console/", with: "")
        var headers = headers
        if let cookie { headers["cookie"] = cookie }
        if let csrf { headers["x-csrf-token"] = csrf }
        if headers["apikey"] == nil { headers["apikey"] = "" }
        return try await fixture.call(method, path, headers: headers, body: body, origin: origin)
    }

    /// Signs in; returns the cookie to send back and the CSRF token.
    static func signIn(_ fixture: ServerFixture) async throws -> (cookie: String, csrf: String) {
        let answer = try await console(fixture, "POST", "/console/api/session", body: #"{"email":"admin@example.com","password":"\#(password)"}"#)
        #expect(answer.status == 200, "\(answer.text)")
        let setCookie = try #require(answer.headers["set-cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/console"), "\(setCookie)")
        return (String(setCookie.split(separator: ";")[0]), try #require(answer.object["csrf"]?.stringValue))
    }

    @Test func onlyASignedInAdministratorGetsInAndChangesNeedTheCSRFToken() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.signUp("app-user@example.com")
        for bearer in [fixture.anonKey, fixture.serviceKey, user.token] {
            let answer = try await Self.console(fixture, "GET", "/console/api/overview", headers: ["authorization": "Bearer \(bearer)", "apikey": bearer])
            #expect(answer.status == 401, "a key or an app token is no session: \(answer.text)")
        }
        let (cookie, csrf) = try await Self.signIn(fixture)
        let overview = try await Self.console(fixture, "GET", "/console/api/overview", cookie: cookie)
        #expect(overview.status == 200 && overview.object["users"] == 1, "\(overview.text)")
        let users = try await Self.console(fixture, "GET", "/console/api/users?q=app-user", cookie: cookie)
        #expect(users.rows.map { $0["email"] } == ["app-user@example.com"], "\(users.text)")

        let valid = try await Self.console(fixture, "POST", "/console/api/validate", cookie: cookie, csrf: csrf, body: #"{"aps":{"alert":{"body":"Hi"}},"deeplink":"soar:///brands/7"}"#)
        #expect(valid.object["valid"] == true && valid.object["route"]?.stringValue?.hasPrefix("brandHub") == true, "\(valid.text)")
        let tooLarge = try await Self.console(
            fixture, "POST", "/console/api/validate", cookie: cookie, csrf: csrf, body: #"{"aps":{"alert":{"body":"\#(String(repeating: "x", count: 5000))"}}}"#)
        #expect(tooLarge.object["valid"] == false && tooLarge.object["error"]?.stringValue?.contains("4096") == true, "\(tooLarge.text)")
        let withoutToken = try await Self.console(fixture, "POST", "/console/api/compose", cookie: cookie, body: #"{"audience":"all","body":"x"}"#)
        #expect(withoutToken.status == 403 && withoutToken.object["error"] == "csrf", "\(withoutToken.text)")
        let wrongToken = try await Self.console(fixture, "DELETE", "/console/api/session", cookie: cookie, csrf: "not-it")
        #expect(wrongToken.status == 403)
        let out = try await Self.console(fixture, "DELETE", "/console/api/session", cookie: cookie, csrf: csrf)
        #expect(out.status == 200 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(try await Self.console(fixture, "GET", "/console/api/overview", cookie: cookie).status == 401, "signed out is out")
    }

    @Test func signInsComeOnlyFromTheConsolesOwnPage() async throws {
        let fixture = try await Self.fixture()
        let body = #"{"email":"admin@example.com","password":"\#(Self.password)"}"#
        let plain = try await Self.console(fixture, "POST", "/console/api/session", headers: ["content-type": "text/plain"], body: body)
        #expect(plain.status == 415, "a body another site could send without asking: \(plain.text)")
        let elsewhere = try await Self.console(fixture, "POST", "/console/api/session", headers: ["origin": "https://evil.example"], body: body)
        #expect(elsewhere.status == 403, "\(elsewhere.text)")
        #expect(try await Self.console(fixture, "POST", "/console/api/session", body: body).status == 200)
    }

    /// The simulated device reads only its own token's notifications: naming someone else's token
    /// in a row of one's own gets nothing, and a signed-out session gets nothing.
    @Test func aDeviceReadsOnlyItsOwnTokensNotifications() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(
            configure: { configuration in
                configuration.consolePort = 0
                configuration.emulatorDeliveries = { token in
                    emulator.emulator.state.deliveries.filter { $0.token == token }.map { EmulatedDelivery(apnsID: $0.apnsID, payload: $0.payload, time: $0.time) }
                }
            }, push: try emulator.pushSettings())
        let token = String(repeating: "d1", count: 32)
        let owner = try await fixture.signUp("owner@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: owner.token, body: #"{"token":"\#(token)","platform":"ios"}"#).status == 201)
        _ = try await fixture.finishedSend(try #require(try await fixture.sendPush(#"{"user_ids":["\#(owner.id)"],"title":"Private","body":"Only mine"}"#).object["send_id"]?.stringValue))
        let path = "/console/device/api/deliveries?token=\(token)&after=0"
        let mine = try await Self.console(fixture, "GET", path, headers: ["authorization": "Bearer \(owner.token)"])
        #expect(mine.status == 200 && mine.object["notifications"]?.arrayValue?.count == 1, "\(mine.text)")
        let thief = try await fixture.signUp("thief@example.com")
        _ = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: thief.token, body: #"{"token":"\#(token)","platform":"ios"}"#)
        let stolen = try await Self.console(fixture, "GET", path, headers: ["authorization": "Bearer \(thief.token)"])
        #expect(stolen.status == 403 || stolen.object["notifications"] == [], "another's notifications: \(stolen.text)")
        _ = try await fixture.call("POST", "/auth/v1/logout", bearer: thief.token)
        #expect(try await Self.console(fixture, "GET", path, headers: ["authorization": "Bearer \(thief.token)"]).status == 401)
    }

    @Test func anotherServersCookieIsRefused() async throws {
        let first = try await Self.fixture()
        let second = try await Self.fixture()
        let (cookie, _) = try await Self.signIn(second)
        #expect(try await Self.console(first, "GET", "/console/api/session", cookie: cookie).status == 401)
        #expect(try await Self.console(second, "GET", "/console/api/session", cookie: cookie).status == 200)
    }

    @Test func failedSignInsAreLimited() async throws {
        let fixture = try await Self.fixture()
        for _ in 0..<5 {
            let wrong = try await Self.console(fixture, "POST", "/console/api/session", body: #"{"email":"admin@example.com","password":"wrong-password"}"#)
            #expect(wrong.status == 400 && wrong.object["message"] == "Invalid email or password", "\(wrong.text)")
        }
        let limited = try await Self.console(fixture, "POST", "/console/api/session", body: #"{"email":"admin@example.com","password":"\#(Self.password)"}"#)
        #expect(limited.status == 429, "even the right password waits: \(limited.text)")
        let unknown = try await Self.console(fixture, "POST", "/console/api/session", body: #"{"email":"nobody@example.com","password":"x"}"#)
        #expect(unknown.status == 429 || unknown.status == 400, "\(unknown.text)")
    }

    @Test func pagesLoadNothingFromElsewhere() async throws {
        let fixture = try await Self.fixture()
        let page = try await Self.console(fixture, "GET", "/console/")
        #expect(page.status == 200 && page.text.contains("data-testid=\"login-email\""))
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'") && !policy.contains("unsafe"), "\(policy)")
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "no other host named")
        for asset in ["/console/console.js", "/console/console.css"] {
            let answer = try await Self.console(fixture, "GET", asset)
            #expect(answer.status == 200 && !answer.text.contains("https://"), "\(asset)")
        }
        #expect(try await Self.console(fixture, "GET", "/console/nope.js").status == 404)
        #expect(try await Self.console(fixture, "POST", "/console/").status == 405)
    }

    @Test func composeSendsAndTheSendsPageCountsIt() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await Self.fixture(emulator: emulator)
        let user = try await fixture.signUp("console-push@example.com")
        let token = String(repeating: "5c", count: 32)
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(token)","platform":"ios"}"#).status == 201)
        let other = try await fixture.signUp("console-push-2@example.com")
        let production = #"{"token":"\#(String(repeating: "6d", count: 32))","platform":"ios","environment":"production","bundle_id":"com.example.app"}"#
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: other.token, body: production).status == 201)
        let (cookie, csrf) = try await Self.signIn(fixture)
        // Counted by the database, grouped (not read row by row).
        let overview = try await Self.console(fixture, "GET", "/console/api/overview", cookie: cookie)
        #expect(overview.object["devices"] == 2, "\(overview.text)")
        #expect(overview.object["devices_by_environment"] == ["unknown": 1, "production": 1], "\(overview.text)")
        #expect(overview.object["devices_by_bundle"] == ["default": 1, "com.example.app": 1], "\(overview.text)")
        let devices = try await Self.console(fixture, "GET", "/console/api/devices", cookie: cookie)
        #expect(devices.rows.contains { $0["token"] == .string(token) && $0["email"] == "console-push@example.com" }, "\(devices.text)")
        let unknown = try await Self.console(
            fixture, "POST", "/console/api/compose", cookie: cookie, csrf: csrf, body: #"{"audience":"nobody@example.com","title":"Hi","body":"There"}"#)
        #expect(unknown.status == 404, "\(unknown.text)")
        // Nothing to show, or a picture iOS would not load: refused, saying why, nothing sent.
        for (body, why) in [(#"{"audience":"all"}"#, "a title or a body"), (#"{"audience":"all","title":"Hi","image":"http://example.com/a.png"}"#, "an https URL"),
                            (#"{"audience":"all","title":"Hi","image":"not a url"}"#, "an https URL")] {
            let refused = try await Self.console(fixture, "POST", "/console/api/compose", cookie: cookie, csrf: csrf, body: body)
            #expect(refused.status == 400 && refused.object["message"]?.stringValue?.contains(why) == true, "\(body): \(refused.text)")
        }
        let sent = try await Self.console(
            fixture, "POST", "/console/api/compose", cookie: cookie, csrf: csrf,
            body: #"{"audience":"console-push@example.com","title":"Hi","body":"There","link":"soar:///notifications"}"#)
        #expect(sent.status == 202, "\(sent.text)")
        let id = try #require(sent.object["send_id"]?.stringValue)
        #expect(sent.object["status"] == .string("/console/api/sends/\(id)"), "the console's own status link: \(sent.text)")
        _ = try await fixture.finishedSend(id)
        #expect(try await Self.console(fixture, "GET", "/console/api/sends/\(id)", cookie: cookie).status == 200)
        #expect(try await Self.console(fixture, "GET", "/console/api/emulator/stats", cookie: cookie).status == 200)
        let fault = try await Self.console(fixture, "POST", "/console/api/emulator/faults", cookie: cookie, csrf: csrf, body: #"{"status":418}"#)
        #expect(fault.status == 400 && fault.object["error"] == "emulator_refused" && fault.object["message"]?.stringValue?.contains("429, 500 or 503") == true, "\(fault.text)")
        #expect(emulator.emulator.state.deliveries.first?.payload.objectValue?["deeplink"] == "soar:///notifications")
        let sends = try await Self.console(fixture, "GET", "/console/api/sends", cookie: cookie)
        #expect(sends.rows.first?["send_id"] == .string(id) && sends.rows.first?["delivered"] == 1, "\(sends.text)")
        let listed = try await fixture.call("GET", "/functions/v1/sends", bearer: fixture.serviceKey)
        #expect(listed.status == 200 && listed.rows.first?["send_id"] == .string(id), "GET /functions/v1/sends lists sends too: \(listed.text)")
    }

    /// The Sends page's live progress through realtime (PyPI's websockets, Tests/Peers/console_live.py):
    /// only the signed-in administrator's page from the console's origin opens the channel, which
    /// hears the console's topic alone; a composed send's delivery arrives on it; app users cannot join.
    @Test(.ownThread) func sendsProgressArrivesLiveOnTheConsolesChannel() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await Self.fixture(emulator: emulator)
        let user = try await fixture.signUp("console-live@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(String(repeating: "7e", count: 32))","platform":"ios"}"#).status == 201)
        let (cookie, csrf) = try await Self.signIn(fixture)
        let origin = try #require(fixture.server.consoleURL).replacingOccurrences(of: "/console/", with: "")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/console_live.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, origin, cookie, csrf, fixture.url, fixture.anonKey, user.token], timeout: 90)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
    }

    @Test func usersDataMailboxAndStorageAreBrowsedAndAUserCanBeSignedOutAndDeleted() async throws {
        let fixture = try await Self.fixture()
        let user = try await fixture.signUp("browsed@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: #"{"title":"seen by the console"}"#).status == 201)
        let (cookie, csrf) = try await Self.signIn(fixture)

        let detail = try await Self.console(fixture, "GET", "/console/api/users/\(user.id)", cookie: cookie)
        #expect(detail.object["email"] == "browsed@example.com" && detail.object["inbox"] == [], "\(detail.text)")
        let tables = try await Self.console(fixture, "GET", "/console/api/tables", cookie: cookie)
        let todos = try #require(tables.rows.first { $0["name"] == "todos" }, "\(tables.text)")
        #expect(todos["columns"]?.arrayValue?.contains { $0.objectValue?["name"] == "title" } == true)
        let rows = try await Self.console(fixture, "GET", "/console/api/tables/todos", cookie: cookie)
        #expect(rows.rows.first?["title"] == "seen by the console", "the service role reads every row: \(rows.text)")
        #expect(try await Self.console(fixture, "GET", "/console/api/tables/nope", cookie: cookie).status == 404)
        let mailbox = try await Self.console(fixture, "GET", "/console/api/mailbox", cookie: cookie)
        #expect(mailbox.status == 200, "\(mailbox.text)")
        let buckets = try await Self.console(fixture, "GET", "/console/api/storage", cookie: cookie)
        #expect(buckets.rows.contains { $0["id"] == "avatars" }, "\(buckets.text)")
        let avatars = buckets.rows.first { $0["id"] == "avatars" }
        #expect(avatars?["allowed_mime_types"]?.arrayValue?.contains("image/png") == true, "mime types as a list: \(buckets.text)")
        #expect(try await Self.console(fixture, "GET", "/console/api/storage/avatars", cookie: cookie).status == 200)
        #expect(try await Self.console(fixture, "GET", "/console/api/storage/nope", cookie: cookie).status == 404)

        // Two sessions listed; one revoked: its token stops working at once, the other's goes on.
        let first = try await Self.console(fixture, "GET", "/console/api/users/\(user.id)", cookie: cookie).object["sessions"]?.arrayValue?.first?.objectValue?["id"]
        let second = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"browsed@example.com","password":"correct-horse"}"#)
        let secondToken = try #require(second.object["access_token"]?.stringValue, "\(second.text)")
        let sessions = try await Self.console(fixture, "GET", "/console/api/users/\(user.id)", cookie: cookie).object["sessions"]?.arrayValue ?? []
        #expect(sessions.count == 2 && sessions.allSatisfy { $0.objectValue?["aal"] == "aal1" }, "\(sessions)")
        let newest = try #require(sessions.compactMap { $0.objectValue?["id"] }.first { $0 != first }?.stringValue)
        #expect(try await Self.console(fixture, "DELETE", "/console/api/users/\(user.id)/sessions/\(newest)", cookie: cookie).status == 403, "without the CSRF token")
        let revoked = try await Self.console(fixture, "DELETE", "/console/api/users/\(user.id)/sessions/\(newest)", cookie: cookie, csrf: csrf)
        #expect(revoked.status == 200, "\(revoked.text)")
        #expect(try await Self.console(fixture, "DELETE", "/console/api/users/\(user.id)/sessions/\(newest)", cookie: cookie, csrf: csrf).status == 404)
        let oneLeft = try await Self.console(fixture, "GET", "/console/api/users/\(user.id)", cookie: cookie).object["sessions"]?.arrayValue ?? []
        #expect(oneLeft.count == 1, "\(oneLeft)")
        let stillIn = try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status
        let cut = try await fixture.call("GET", "/rest/v1/todos", bearer: secondToken).status
        #expect(stillIn == 200 && cut == 401, "the first session goes on (\(stillIn)), the revoked one is refused (\(cut))")

        // Signed out everywhere: the user's token stops working at once; then deleted.
        let signOut = try await Self.console(fixture, "POST", "/console/api/users/\(user.id)/signout", cookie: cookie, csrf: csrf)
        #expect(signOut.status == 200, "\(signOut.text)")
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status == 401)
        #expect(try await Self.console(fixture, "DELETE", "/console/api/users/\(user.id)", cookie: cookie).status == 403, "without the CSRF token")
        #expect(try await Self.console(fixture, "DELETE", "/console/api/users/\(user.id)", cookie: cookie, csrf: csrf).status == 200)
        #expect(try await Self.console(fixture, "GET", "/console/api/users/\(user.id)", cookie: cookie).status == 404)
    }
}
