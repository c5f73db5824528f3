import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarPush
import SoarRealtime
import SoarStorage
import SoarStore

/// `soar serve`: HTTP -> route table -> gateway (keys, JWT) -> a service (auth, data, functions) -> the store.
public final class Server: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 54321
        public var limits = HTTPServer.Limits()
        /// HTTPS with this certificate and key; nil for plain HTTP.
        public var tls: HTTPServer.TLS?
        public var authLimits = AuthService.Limits()
        /// Realtime's per-socket limits: channels, messages and joins a second, message size.
        public var realtimeLimits = RealtimeServer.Limits()
        public var passwordHasher: any PasswordHashing = PasswordHasher()
        /// Whether `/metrics` answers without the service_role key: a reverse proxy on the same
        /// machine would otherwise publish it to anyone, so it is off unless asked for.
        public var publicMetrics = false
        /// Sign in with Apple (identity tokens for these app ids), or off.
        public var apple: AppleSignIn?
        /// Auth mail: the SMTP server (none: the development mailbox), links, templates, confirmation.
        public var email = EmailSettings()
        /// ES256 keys for access tokens (`SOAR_JWT_KEYS_DIR`); none: HS256 with the secret.
        public var signingKeys: [SigningKey] = []
        /// Access-token lifetime in seconds.
        public var tokenLifetime = 3600
        /// Notifications kept per user in the server-side inbox.
        public var inboxSize = 500
        /// How long send-test-push waits for APNs before answering 504 (delivery goes on).
        public var testPushDeadline = Duration.seconds(20)
        /// How long a webhook receiver may take to answer before the attempt counts as failed.
        public var webhookTimeout = Duration.seconds(10)
        /// The console's own port (`--console-port`; 0 picks a free one); nil: no console.
        public var consolePort: UInt16?
        /// Where the console listens (`--console-host`): this machine only unless asked, whatever
        /// the API's host, since its sign-in is only as private as the network it crosses.
        public var consoleHost = "127.0.0.1"
        /// What the APNs emulator recorded for a token, for the console's simulated device; nil
        /// without an emulator in reach (`soar serve --with-emulator` gives its own).
        public var emulatorDeliveries: (@Sendable (String) -> [EmulatedDelivery])?
        /// The emulator's control plane (method, path, body → status, body) for the console's
        /// Emulator page; nil without an emulator in this process.
        public var emulatorControl: (@Sendable (String, String, Data) -> (status: Int, body: Data))?
        /// The app's routes, for the simulated device's taps (the seed app's by default).
        public var routes: RouteTable = .seedApp
        public var version = "soar"
        /// Where stored objects' bytes live (`--storage-dir`); nil: `/storage/v1` answers 503.
        public var storageDirectory: String?
        /// The URL phones reach the API at (`SOAR_PUBLIC_URL`, behind a proxy); nil: the one it
        /// listens at. Push images' signed URLs start with it.
        public var publicURL: String?
        /// Seconds a push image's signed URL stays good (a notification may wait in APNs for days).
        public var pushImageLifetime = 7 * 86_400
        /// Push kinds no user preference mutes (`SOAR_PUSH_CRITICAL_KINDS`).
        public var criticalPushKinds: Set<String> = ["security"]
        /// The zone `local_time` uses for devices that name none (`SOAR_PUSH_DEFAULT_TIME_ZONE`).
        public var pushFallbackTimeZone = TimeZone(identifier: "UTC")!
        /// Sends of a kind one user gets in 24 hours at most (`SOAR_PUSH_FREQUENCY_CAPS`, `promo=3`).
        public var pushFrequencyCaps: [String: Int] = [:]
        public var storageLimits = StorageService.Limits()

        public init() {}
    }

    public let store: any Store
    public let keys: APIKeys
    public let auth: AuthService
    public let push: PushService
    /// Supabase Realtime's WebSocket side, on a loop of its own.
    public let realtime: RealtimeServer
    /// Database changes to realtime's subscribers.
    private let changes: ChangeFeed
    /// Supabase Storage, when a directory for its bytes is configured.
    public let storage: StorageService?
    /// Its hourly sweep, cancelled at shutdown.
    private nonisolated(unsafe) var storageSweeper: (any DispatchSourceTimer)?
    private let storageEndpoints: StorageEndpoints?
    /// The console, on its own port; nil when not asked for.
    private let console: ConsoleServer?
    /// Where the console is (`http://127.0.0.1:54323/console/`); nil without one.
    public var consoleURL: String? { console?.url }
    let logger: Logger
    let metrics = Metrics()
    private let router: Router
    private let http: HTTPServer
    public var port: UInt16 { http.port }
    public var url: String { "\(scheme)://\(hostForURL):\(http.port)" }
    private let hostForURL: String
    private let scheme: String

    /// Starts listening at once.
    ///
    /// - Throws: ``HTTPServerError`` when the address cannot be bound.
    public init(
        configuration: Configuration, store: any Store, keys: APIKeys, push: PushSettings.Loaded = PushSettings.unset,
        functions: FunctionRegistry = FunctionRegistry(), logger: Logger = Logger(), now: @escaping @Sendable () -> Date = Date.init
    ) throws(HTTPServerError) {
        self.store = store
        self.keys = keys
        self.logger = logger
        // Listening on every address, the URL names one a phone on the network can reach.
        let reachable = ["0.0.0.0", "::"].contains(configuration.host) ? LANAddress.first() ?? configuration.host : configuration.host
        hostForURL = reachable.contains(":") ? "[\(reachable)]" : reachable
        scheme = configuration.tls == nil ? "http" : "https"
        // Listening first, so the token issuer names the bound port; requests get 503 until `box` is set.
        let box = HandlerBox()
        let maxBody = configuration.limits.maxBodySize
        http = try HTTPServer(
            host: configuration.host, port: configuration.port, limits: configuration.limits, tls: configuration.tls,
            oversized: { request in box.server?.refuse(request, .gateway(413, "Request body is over \(maxBody) bytes", code: "413")) ?? HTTPResponse(status: 413) },
            notify: { notice in
                switch notice {
                case .refused(let status, let reason, let client):
                    logger.log(.warn, "request refused", ["status": .int(status), "error": .string(reason), "client": .string(client)])
                case .library(let message):
                    logger.log(.warn, "http", ["error": .string(message)])
                }
            },
            bodyDestination: { request in box.server?.bodyDestination(request) ?? .memory },
            deferringHandler: { request, later in
                guard let server = box.server else { return HTTPResponse(status: 503) }
                return server.answer(request, later: later)
            })
        let issuer = "\(scheme)://\(hostForURL):\(http.port)/auth/v1"
        var emailSettings = configuration.email
        emailSettings.mailer = emailSettings.mailer ?? DevelopmentMailbox(store: store) { [logger] mail in
            // No SMTP: the mail's link and code in the log, as a local stack's mail catcher shows them.
            logger.log(.info, "mail", ["to": .string(mail.to), "subject": .string(mail.subject), "text": .string(mail.text)])
        }
        auth = AuthService(
            store: store, tokens: Tokens(secret: keys.secret, issuer: issuer, lifetime: configuration.tokenLifetime, keys: configuration.signingKeys),
            hasher: configuration.passwordHasher, limits: configuration.authLimits, apple: configuration.apple,
            email: emailSettings, now: now)
        let gateway = Gateway(keys: keys, auth: auth)
        var router = Router()
        AuthEndpoints(auth: auth, gateway: gateway, version: configuration.version).register(in: &router)
        self.push = PushService(
            settings: push, store: store, inboxSize: configuration.inboxSize, criticalKinds: configuration.criticalPushKinds,
            segments: { filter throws(PushError) in try Segment.condition(filter, store: store) },
            fallbackTimeZone: configuration.pushFallbackTimeZone, frequencyCaps: configuration.pushFrequencyCaps,
            webhookTimeout: configuration.webhookTimeout, now: now)
        do {
            let auth = self.auth
            realtime = try RealtimeServer(limits: configuration.realtimeLimits, clock: now) { token in RealtimeEndpoints.identity(token, auth: auth) }
        } catch {
            http.stop()
            throw HTTPServerError("cannot start the realtime loop: \(error)")
        }
        RealtimeEndpoints(realtime: realtime, gateway: gateway).register(in: &router)
        changes = ChangeFeed(store: store, realtime: realtime)
        realtime.setChangeAuthority(changes)
        realtime.setChannelAuthority(ChannelPolicies(store: store))
        changes.start()
        if let directory = configuration.storageDirectory {
            do {
                let storage = StorageService(store: store, files: try ObjectFiles(root: directory), secret: keys.secret, limits: configuration.storageLimits, now: now)
                let endpoints = StorageEndpoints(storage: storage, gateway: gateway)
                endpoints.register(in: &router)
                (self.storage, storageEndpoints) = (storage, endpoints)
                // What a crash or a lost race left behind (uploads never finished, versions no row
                // names): at the start, then every hour.
                let sweeper = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                sweeper.schedule(deadline: .now(), repeating: .seconds(3600))
                sweeper.setEventHandler {
                    if let removed = try? storage.sweep(), removed > 0 { logger.log(.info, "storage swept", ["files": .int(removed)]) }
                }
                sweeper.resume()
                storageSweeper = sweeper
            } catch {
                changes.stop()
                realtime.stop()
                http.stop()
                throw HTTPServerError(error.message)
            }
        } else {
            (storage, storageEndpoints) = (nil, nil)
            router.add(["GET", "POST", "PUT", "DELETE"], "/storage/v1/{rest*}") { _ throws(ServerError) in
                throw .storage(StorageError(status: 503, error: "unavailable", code: "StorageUnavailable", message: "storage is not configured (soar serve --storage-dir)"))
            }
        }
        let listening = "\(scheme)://\(hostForURL):\(http.port)"
        let images = self.storage.map { PushImages(storage: $0, baseURL: configuration.publicURL ?? listening, lifetime: configuration.pushImageLifetime) }
        let ownHosts = Set([configuration.host, hostForURL, LANAddress.first()].compactMap { $0?.lowercased() })
        PushEndpoints(
            push: self.push, gateway: gateway, deadline: configuration.testPushDeadline, images: images, ownAddresses: (ownHosts, Int(http.port))
        ).register(in: &router)
        if let consolePort = configuration.consolePort {
            do {
                let device = ConsoleDevice(
                    store: store, auth: auth, apiURL: "\(scheme)://\(hostForURL):\(http.port)", anonKey: keys.anonKey, routes: configuration.routes,
                    deliveries: configuration.emulatorDeliveries)
                let consoleReachable = ["0.0.0.0", "::"].contains(configuration.consoleHost)
                    ? LANAddress.first() ?? configuration.consoleHost : configuration.consoleHost
                console = try ConsoleServer(
                    host: configuration.consoleHost, port: consolePort, hostForURL: consoleReachable.contains(":") ? "[\(consoleReachable)]" : consoleReachable, tls: configuration.tls, store: store, push: self.push,
                    hasher: configuration.passwordHasher, device: device, emulator: configuration.emulatorControl, realtime: realtime, now: now)
            } catch {
                storageSweeper?.cancel()
                changes.stop()
                realtime.stop()
                http.stop()
                throw HTTPServerError("the console: \(error.description)")
            }
        } else {
            console = nil
        }
        let rest = RestService(store: store)
        router.add(["GET", "POST", "PATCH", "DELETE"], "/rest/v1/{table}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            return try rest.handle(&exchange)
        }
        router.add(["GET", "POST"], "/rest/v1/rpc/{function}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            return try rest.call(&exchange)
        }
        router.add(["GET", "POST"], "/functions/v1/{name}") { exchange throws(ServerError) in
            try gateway.admit(&exchange)
            if exchange.access.role == .anon { throw .gateway(401, "Invalid JWT", code: "401") }
            return try functions.invoke(exchange)
        }
        let logger = self.logger
        let health = HealthEndpoints(store: store, now: now) { reason in logger.log(.warn, "health check failed", ["error": .string(reason)]) }
        let metrics = self.metrics
        let pushService = self.push
        let realtimeServer = self.realtime
        router.add(["GET"], "/health") { _ throws(ServerError) in health.check() }
        let open = configuration.publicMetrics
        router.add(["GET"], "/metrics") { exchange throws(ServerError) in
            var caller = exchange
            if !open { try? gateway.admit(&caller, apiKeyOptional: true) }
            if !open && caller.access.role != .serviceRole {
                throw .gateway(401, "/metrics needs the service_role key (or soar serve --public-metrics where the port is private)", code: "401")
            }
            return HTTPResponse(status: 200, headers: [("content-type", "text/plain; version=0.0.4")], body: Data((metrics.text + pushService.metricsText + realtimeServer.metricsText).utf8))
        }
        self.router = router
        box.server = self
    }

    /// Stops accepting, finishes requests in flight (up to `grace`), closes the store (which
    /// commits the queued inserts, whose answers then go out), then stops the HTTP server.
    public func shutdown(grace: Duration = .seconds(10)) {
        http.drain(grace: grace)
        storageSweeper?.cancel()
        console?.stop()
        changes.stop()
        realtime.stop()
        push.shutdown()
        // Queued inserts commit and send their real answers before anything left gets a 503.
        store.close()
        http.stop()
    }

    // MARK: one request

    /// The answer, or nil when the route answers later through `later`.
    private func answer(_ request: HTTPRequest, later: LaterAnswer) -> HTTPResponse? {
        let started = ContinuousClock.now
        let requestID = Self.requestID(request.headers["x-request-id"])
        var exchange = Exchange(request: request, requestID: requestID)
        var label = "unmatched"
        let outcome: Result<HTTPResponse, ServerError>
        if request.method == "OPTIONS" {
            label = "preflight"
            outcome = .success(HTTPResponse(status: 204, headers: Self.preflightHeaders))
        } else {
            let (route, parameters, methodAllowed) = router.match(request.method, request.path)
            if let route {
                label = route.label
                exchange.parameters = parameters
                do { outcome = .success(try route.handler(&exchange)) } catch { outcome = .failure(error) }
            } else {
                outcome = .failure(methodAllowed ? ServerError.gateway(404, "no Route matched with those values") : .gateway(405, "method not allowed"))
            }
        }
        if case .success = outcome, let work = exchange.later {
            work.start { [self, label] outcome in
                later.send { self.finish(outcome(), request, requestID: requestID, label: label, started: started) }
            }
            return nil
        }
        return finish(outcome, request, requestID: requestID, label: label, started: started)
    }

    /// Where a request's body goes: an upload's to its file (refused now when its headers already
    /// rule it out), any other's into memory.
    private func bodyDestination(_ request: HTTPRequest) -> BodyDestination {
        guard let storageEndpoints, request.method == "POST" || request.method == "PUT", request.path.hasPrefix("/storage/v1/") else { return .memory }
        let (route, parameters, _) = router.match(request.method, request.path)
        guard let route, StorageEndpoints.streams(request.method, route: route.label) else { return .memory }
        switch storageEndpoints.beginUpload(request, route: route.label, parameters: parameters) {
        case .success(let sink):
            sink.refusal = { [weak self] error in self?.refuse(request, .storage(error)) ?? HTTPResponse(status: error.httpStatus) }
            return .stream(sink)
        case .failure(let error):
            return .refuse(refuse(request, error))
        }
    }

    /// The answer to a request refused before routing (a body over the limit).
    private func refuse(_ request: HTTPRequest, _ failure: ServerError) -> HTTPResponse {
        finish(.failure(failure), request, requestID: Self.requestID(request.headers["x-request-id"]), label: "unmatched", started: .now)
    }

    /// What every answer carries (request id, CORS), its metrics and its log line.
    private func finish(
        _ outcome: Result<HTTPResponse, ServerError>, _ request: HTTPRequest, requestID: String, label: String, started: ContinuousClock.Instant
    ) -> HTTPResponse {
        var response: HTTPResponse
        var fault: ServerError?
        switch outcome {
        case .success(let answered): response = answered
        case .failure(let error):
            fault = error
            response = error.response(to: request)
        }
        response.headers.append(("x-request-id", requestID))
        response.headers.append(("access-control-allow-origin", request.headers["origin"] ?? "*"))
        response.headers.append(("access-control-expose-headers", "content-range, content-location, preference-applied, retry-after, x-request-id, x-total-count, x-supabase-api-version, x-sb-error-code"))
        let seconds = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000
        metrics.record(route: label, status: response.status, seconds: seconds, storeError: fault?.isServerFault == true)
        var error: String?
        // A client's mistake is logged by its code only (a message may echo what the client sent).
        let code: JSONValue = fault.map { .string($0.code) } ?? .null
        if let fault, fault.isServerFault {
            switch fault.shape {
            case .auth(let failure): error = failure.message
            case .rest(_, let message, _, _), .gateway(let message, _), .function(_, let message): error = message
            case .storage(let failure): error = failure.message
            }
        }
        logger.log(
            error == nil ? .info : .error, "request",
            [
                "request_id": .string(requestID), "method": .string(request.method), "route": .string(label),
                "status": .int(response.status), "duration_ms": .double((seconds * 1_000_000).rounded() / 1000),
                "remote": .string(request.remoteAddress), "code": code, "error": error.map { .string($0) } ?? .null,
            ])
        return response
    }

    static let preflightHeaders: [(String, String)] = [
        ("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD"),
        (
            "access-control-allow-headers",
            "authorization, x-client-info, apikey, content-type, prefer, range, accept, accept-profile, content-profile, x-supabase-api-version, x-request-id"
        ),
        ("access-control-max-age", "86400"),
    ]

    /// The client's `x-request-id` when it is a sane token, else a new one.
    static func requestID(_ given: String?) -> String {
        if let given, (1...64).contains(given.utf8.count),
            given.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95 })
        {
            return given
        }
        return RandomUUID.lowercase()
    }
}

/// Lets the HTTP server's handler reach the `Server` that owns it, once it exists.
private final class HandlerBox: Sendable {
    private struct Weak { weak var target: Server? }
    private let target = Locked(Weak())

    var server: Server? {
        get { target.withLock { $0.target } }
        set { target.withLock { $0.target = newValue } }
    }
}
