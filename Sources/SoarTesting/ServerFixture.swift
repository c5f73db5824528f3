import Foundation
import SoarAuth
import SoarCore
import SoarPush
import SoarServer
import SoarStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `soar serve` in this process on 127.0.0.1 and a free port, over a fresh SQLite file, with a
/// client that speaks to it as supabase clients do (`apikey`, bearer tokens).
public final class ServerFixture: Sendable {
    public let server: Server
    public let directory: TemporaryDirectory
    /// Log lines the server wrote, for tests that check what is (not) logged.
    public let logLines: LogLines
    private let session: URLSession

    public var url: String { server.url }
    public var anonKey: String { server.keys.anonKey }
    public var serviceKey: String { server.keys.serviceRoleKey }

    /// - Parameters:
    ///   - configure: changes to the server configuration (limits, lifetimes).
    ///   - now: the server's clock.
    ///   - push: Apple's credentials and destinations (an emulator's), or unset.
    public init(
        configure: (inout Server.Configuration) -> Void = { _ in }, push: PushSettings.Loaded = PushSettings.unset,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        directory = TemporaryDirectory("soar-serve")
        var configuration = Server.Configuration()
        configuration.port = 0
        // A cheap hash keeps sign-ups fast in tests; the format and checks are the production ones.
        configuration.passwordHasher = PasswordHasher(memoryKiB: 64, passes: 1)
        configuration.storageDirectory = directory.path + "/storage"
        configure(&configuration)
        let store: any Store
        if PostgresCluster.selected {
            // SOAR_TEST_STORE=postgres: the same tests against a fresh database of the test cluster.
            store = try PostgresStore(url: try PostgresCluster.shared.get().createMigratedDatabase(), poolSize: 8, now: now)
        } else {
            store = try SQLiteStore(path: directory.path + "/soar.db", now: now)
        }
        let keys = try APIKeys(secret: Data("a-test-secret-that-is-long-enough-0123456789".utf8))
        let lines = LogLines()
        logLines = lines
        server = try Server(configuration: configuration, store: store, keys: keys, push: push, logger: Logger(level: .debug) { lines.append($0) }, now: now)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 30
        sessionConfiguration.httpShouldSetCookies = false
        session = URLSession(configuration: sessionConfiguration)
    }

    /// A fixture made on a thread of its own, for async tests: opening a store (on Postgres, a
    /// database copied and its schema read) blocks, and blocking Swift's cooperative threads (one
    /// a core) stalled every other test's tasks, push workers included, while hundreds started.
    public static func start(
        configure: @escaping (inout Server.Configuration) -> Void = { _ in }, push: PushSettings.Loaded = PushSettings.unset,
        now: @escaping @Sendable () -> Date = Date.init
    ) async throws -> ServerFixture {
        nonisolated(unsafe) let configure = configure
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try ServerFixture(configure: configure, push: push, now: now) }) }
        }
    }

    deinit { server.shutdown(grace: .seconds(1)) }

    /// An answer: status, headers (lowercased names) and the body as JSON when it is JSON.
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data
        public var json: JSONValue? { try? JSONValue.read(body) }
        public var object: [String: JSONValue] { json?.objectValue ?? [:] }
        public var rows: [[String: JSONValue]] { json?.arrayValue?.compactMap(\.objectValue) ?? [] }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request with the anon key as `apikey` unless `headers` sets one, and `bearer` as the
    /// JWT; the body is `body`'s text, or `bytes`. `origin` sends it elsewhere than the API (the
    /// console's port). Cookies are only those `headers` name.
    public func call(
        _ method: String, _ path: String, bearer: String? = nil, headers: [String: String] = [:], body: String? = nil, bytes: Data? = nil,
        origin: String? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: (origin ?? url) + path)!)
        request.httpMethod = method
        if headers["apikey"] == nil { request.setValue(anonKey, forHTTPHeaderField: "apikey") }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers where !value.isEmpty { request.setValue(value, forHTTPHeaderField: name) }
        if let body = bytes ?? body.map({ Data($0.utf8) }) {
            request.httpBody = body
            if headers["content-type"] == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var lowered: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: lowered, body: data)
    }

    /// `send-push` with the service role's key.
    public func sendPush(_ body: String) async throws -> Answer {
        try await call("POST", "/functions/v1/send-push", bearer: serviceKey, headers: ["apikey": serviceKey], body: body)
    }

    /// Waits (at most 20 s) until every stored job has its outcome. A test that moves the clock
    /// past the workers' leases must wait for it: a job the emulator got whose outcome is not yet
    /// written would be free again, and go out twice.
    public func outcomesRecorded() async -> Bool {
        await waitUntil(within: .seconds(20)) { (try? self.server.store.pendingJobCount()) == 0 }
    }

    /// A send's statistics once nothing is pending (at most 20 s).
    public func finishedSend(_ id: String) async throws -> [String: JSONValue] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let status = try await call("GET", "/functions/v1/sends/\(id)", bearer: serviceKey)
            if status.object["pending"] == 0 && status.object["finished_at"] != .null { return status.object }
            guard ContinuousClock.now < deadline else { throw FixtureError("send \(id) did not finish: \(status.text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Signs a new user up; returns the access token, refresh token and user id.
    public func signUp(_ email: String, password: String = "correct-horse") async throws -> (token: String, refresh: String, id: String) {
        let answer = try await call("POST", "/auth/v1/signup", body: #"{"email":"\#(email)","password":"\#(password)"}"#)
        guard answer.status == 200, let token = answer.object["access_token"]?.stringValue,
            let refresh = answer.object["refresh_token"]?.stringValue, let id = answer.object["user"]?.objectValue?["id"]?.stringValue
        else { throw FixtureError("sign-up of \(email) failed: \(answer.status) \(answer.text)") }
        return (token, refresh, id)
    }
}

/// Lines collected from a logger.
public final class LogLines: @unchecked Sendable {
    private let lines = Locked([String]())

    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }
}

public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
