import Foundation
import SoarAuth
import SoarCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `soar demo`: the seed's whole push path against a running `soar serve --with-emulator`, as the
/// app would walk it: sign up, register a device token, send-test-push, the delivery, the tap's route.
struct DemoCommand: Command {
    static let name = "demo"
    static let summary = "Deliver a first push: sign up, register a token, send-test-push, show the delivery and its route."
    static let options = [
        Option("--url", value: "URL", help: "The server (default http://127.0.0.1:54321, or SOAR_PORT's)."),
        Option("--db", value: "PATH", help: "The server's database, whose secret gives the anon key (default ./soar.db, or SOAR_DB)."),
        Option("--database-url", value: "URL", help: "The server's PostgreSQL instead (its secret is ./soar.jwt-secret)."),
        Option("--control", value: "URL", help: "The emulator's control API (default http://127.0.0.1:2198, serve --with-emulator's)."),
    ]
    static let discussion = """
        Run it beside `./scripts/run` (soar serve --with-emulator), in the same directory: the anon key
        comes from ANON_KEY, else from JWT_SECRET or the secret soar serve keeps in <db>.jwt-secret.
        Exits 0 when the notification was delivered, 1 when it was not, 2 when APNs is not configured
        or no anon key is found, 3 when no server answers.
        """

    let url: String
    let database: DatabaseChoice
    let control: String
    let environment: [String: String]

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        environment = arguments.environment
        let port = environment["SOAR_PORT"].flatMap { $0.isEmpty ? nil : $0 } ?? "54321"
        url = Self.withoutSlash(arguments.value("--url") ?? "http://127.0.0.1:\(port)")
        database = try DatabaseChoice(arguments)
        control = Self.withoutSlash(arguments.value("--control") ?? "http://127.0.0.1:2198")
        for (flag, value) in [("--url", url), ("--control", control)] where !(value.hasPrefix("http://") || value.hasPrefix("https://")) {
            throw .usage("\(flag) must start with http:// or https://, as in http://\(value)")
        }
    }

    func run(_ console: Console) async throws(CommandError) {
        let anon = try anonKey()
        let client = DemoClient(base: url, anonKey: anon)
        guard (try? await client.call("GET", "/health")) != nil else {
            throw .unreachable("no soar serve answers at \(url): start it with ./scripts/run (soar serve --with-emulator), or pass --url")
        }
        let email = "demo-\(RandomUUID.lowercase().prefix(8))@example.com"
        let signup = try await client.call("POST", "/auth/v1/signup", body: ["email": .string(email), "password": .string(RandomUUID.lowercase())])
        guard signup.status == 200, let token = signup.object["access_token"]?.stringValue, let user = signup.object["user"]?.objectValue?["id"]?.stringValue else {
            throw .failure("sign-up failed (\(signup.status)): \(signup.text)\(signup.status == 401 ? " — is the anon key this server's? pass --db or ANON_KEY" : "")")
        }
        console.print("1. signed up \(email) (user \(user))")

        let device = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let registered = try await client.call(
            "POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: token, prefer: "resolution=merge-duplicates",
            body: ["user_id": .string(user), "token": .string(device), "platform": "ios", "updated_at": .string(Timestamp.format(Date()))])
        guard registered.status == 201 else { throw .failure("registering the device token failed (\(registered.status)): \(registered.text)") }
        console.print("2. registered device token \(device.prefix(8))…\(device.suffix(4)) in device_tokens (upsert on user_id,token)")

        let deeplink = "soar:///notifications"
        let sent = try await client.call(
            "POST", "/functions/v1/send-test-push", bearer: token,
            body: ["title": "Hello from Soar", "body": "Your first push, delivered.", "deeplink": .string(deeplink), "environment": "sandbox"])
        if sent.status == 503 { throw .configuration("send-test-push: \(sent.object["message"]?.stringValue ?? sent.text)") }
        guard sent.status == 200, let result = sent.object["results"]?.arrayValue?.first?.objectValue else {
            throw .failure("send-test-push failed (\(sent.status)): \(sent.text)")
        }
        let status = result["status"]?.stringValue ?? "?"
        console.print("3. send-test-push: \(status)\(result["reason"]?.stringValue.map { " (\($0))" } ?? "") via \(result["environment"]?.stringValue ?? "?"), apns-id \(result["apns_id"]?.stringValue ?? "-")")
        guard status == "delivered" else { throw .failure("the notification was not delivered: \(JSONValue.object(result).jsonText)") }

        let emulator = DemoClient(base: control, anonKey: nil)
        if let deliveries = try? await emulator.call("GET", "/deliveries"), let list = deliveries.json.arrayValue,
            let delivery = list.last(where: { $0.objectValue?["token"]?.stringValue == device })
        {
            console.print("4. the APNs emulator recorded: \(delivery.jsonText)")
        } else if (try? await emulator.call("GET", "/stats")) == nil {
            // Delivered, but to an emulator this demo cannot see (free ports) or to Apple.
            throw .failure(
                "4. delivered, but no APNs emulator answers at \(control) to show the delivery: pass --control with the control URL soar serve printed (with Apple's credentials set, look at the phone)")
        } else {
            throw .failure("4. the emulator at \(control) did not record the delivery: is it the one soar serve sends to?")
        }
        let route = PushRoute.parse(deeplink).map { "\($0) (deeplink \(deeplink))" } ?? "no screen"
        console.print("5. a tap opens: \(route)")
    }

    private static func withoutSlash(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// ANON_KEY, or the key derived from JWT_SECRET or the server's kept secret; never creates one.
    private func anonKey() throws(CommandError) -> String {
        if let key = environment["ANON_KEY"], !key.isEmpty { return key }
        let file = database.secretFile
        let secret = environment["JWT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        guard secret != nil || FileManager.default.fileExists(atPath: file) else {
            throw .configuration("no anon key: \(file) does not exist. Run soar demo where soar serve runs (or pass --db), or set ANON_KEY")
        }
        do { return try APIKeys(secret: try APIKeys.loadSecret(environment: secret, file: file)).anonKey } catch { throw .configuration(error.message) }
    }
}

/// The few HTTP calls the demo makes, as a supabase client makes them.
private struct DemoClient {
    let base: String
    let anonKey: String?

    struct Answer {
        let status: Int
        let data: Data
        var json: JSONValue { (try? JSONValue.read(data)) ?? .null }
        var object: [String: JSONValue] { json.objectValue ?? [:] }
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    func call(_ method: String, _ path: String, bearer: String? = nil, prefer: String? = nil, body: JSONValue? = nil) async throws(CommandError) -> Answer {
        guard let url = URL(string: base + path) else { throw .usage("\(base) is not a URL") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        if let anonKey {
            request.setValue(anonKey, forHTTPHeaderField: "apikey")
            request.setValue("Bearer \(bearer ?? anonKey)", forHTTPHeaderField: "Authorization")
        }
        if let prefer { request.setValue(prefer, forHTTPHeaderField: "Prefer") }
        if let body {
            request.httpBody = body.jsonData
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw .unreachable("\(method) \(base)\(path): \(ErrorText.describe(error))")
        }
        return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, data: data)
    }
}
