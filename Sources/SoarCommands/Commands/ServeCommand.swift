import Foundation
import SoarAPNs
import SoarAuth
import SoarCore
import SoarEmulator
import SoarHTTP
import SoarPush
import SoarRealtime
import SoarSchema
import SoarServer
import SoarStorage
import SoarStore

/// `soar serve`: the Supabase-compatible backend (auth, data API, functions) on SQLite or PostgreSQL.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "Run the backend: Supabase-compatible auth and data API on SQLite or PostgreSQL."
    static let options = [
        Option("--host", value: "IP", help: "Address to listen on (default 127.0.0.1)."),
        Option("--port", value: "N", help: "Port (default 54321, or SOAR_PORT; 0 picks a free one)."),
        Option("--db", value: "PATH", help: "SQLite file (default ./soar.db, or SOAR_DB); created and migrated on start."),
        Option("--database-url", value: "URL", help: "PostgreSQL instead of SQLite (or DATABASE_URL): postgres://user@host:port/db."),
        MigrationsChoice.option,
        Option("--storage-dir", value: "DIR", help: "Where Storage keeps objects' bytes (default ./storage beside the SQLite file, or ./storage)."),
        Option("--console-port", value: "N|off", help: "The console's port (default the API's port + 2: 54323; a free one with --port 0; off: none)."),
        Option("--console-host", value: "IP", help: "Where the console listens (default 127.0.0.1, whatever --host; give another only with --tls-cert or on a private network)."),
        Option("--threads", value: "N", help: "HTTP worker threads (default 4)."),
        Option("--max-body", value: "BYTES", help: "Largest request body accepted (default 1048576)."),
        Option("--max-connections-per-ip", value: "N", help: "Open connections one client address may hold (default 256; 0: no limit, behind a proxy)."),
        Option("--header-timeout", value: "SECONDS", help: "Time a request's headers may take to arrive (default 30)."),
        Option("--body-timeout", value: "SECONDS", help: "Time a request's body may take once its headers are in (default 60)."),
        Option("--email-confirm", value: "required|off", help: "Whether sign-ups and email changes wait for the mailed link or code (default off, as a local Supabase)."),
        Option("--public-metrics", help: "Serve /metrics without the service_role key (only where the port is private)."),
        Option("--synchronous", value: "full|normal", help: "SQLite: full (default) syncs each commit, surviving power loss; normal survives a killed process only, faster on slow disks."),
        Option("--tls-cert", value: "FILE", help: "Serve HTTPS with this PEM certificate chain (with --tls-key)."),
        Option("--tls-key", value: "FILE", help: "The certificate's PEM private key."),
        Option("--log-level", value: "LEVEL", help: "debug, info, warn or error (default info, or SOAR_LOG_LEVEL)."),
        Option("--with-emulator", help: "Also run the APNs emulator here; without Apple credentials, push goes to it."),
        Option("--emulator-port", value: "N", help: "The emulator's sandbox port (default 2197; control 2198, production 2199; 0: free ones)."),
        Option("--emulator-dir", value: "DIR", help: "The emulator's CA, certificate and development key (default .soar/emulator)."),
    ]
    static let discussion = """
        Prints on start: the API URL, the anon key, the service_role key, the database, how push is
        configured and, with --with-emulator, the emulator's URLs (one line each).
        Point any Supabase client at the URL with the anon key. Logs are JSON lines on standard error.

        Push: APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY (or APNS_PRIVATE_KEY_FILE) and APNS_BUNDLE_ID
        let send-test-push deliver; APNS_SANDBOX_URL, APNS_PRODUCTION_URL or APNS_URL (with APNS_CA_FILE)
        send elsewhere than Apple. Without them it answers 503 apns_not_configured, unless
        --with-emulator points both environments at the emulator it runs.

        Mail: SMTP_HOST, SMTP_PORT (587; 465 is TLS from the start), SMTP_USER, SMTP_PASS,
        SMTP_ADMIN_EMAIL (the sender) and SMTP_SENDER_NAME send auth mail (codes, links) through an
        SMTP server; without them mail is kept at /auth/v1/mailbox (service role) and logged.
        GOTRUE_SITE_URL and GOTRUE_URI_ALLOW_LIST bound where links lead; GOTRUE_SMTP_MAX_FREQUENCY
        (60s) spaces mails to one address; GOTRUE_MAILER_SUBJECTS_<KIND> and
        GOTRUE_MAILER_TEMPLATES_<KIND> (a file; or supabase/templates/<kind>.html) replace a mail's
        subject and HTML, for CONFIRMATION, MAGIC_LINK, RECOVERY and EMAIL_CHANGE.

        Rate limits, per client address per 5 minutes (0: none): SOAR_RATE_LIMIT_SIGN_IN (30: sign-ups,
        sign-ins, mail requests), GOTRUE_RATE_LIMIT_VERIFY (30: codes and links, MFA codes),
        GOTRUE_RATE_LIMIT_TOKEN_REFRESH (150: refreshes).

        Access tokens last GOTRUE_JWT_EXP seconds (3600).

        Realtime, per socket: REALTIME_MAX_CHANNELS_PER_CLIENT (100), REALTIME_MAX_EVENTS_PER_SECOND
        (100 messages), REALTIME_MAX_JOINS_PER_SECOND (50), REALTIME_MAX_PAYLOAD_SIZE_IN_KB (1024: a
        larger message closes the socket with 1009).

        Signing keys: SOAR_JWT_KEYS_DIR names a folder of P-256 keys in PEM (soar keys generate makes
        them); the last private one by name signs access tokens as ES256, every one verifies, and
        /auth/v1/.well-known/jwks.json publishes them. Add a newer key to rotate; remove one to retire it.

        Sign in with Apple: GOTRUE_EXTERNAL_APPLE_CLIENT_ID names the app's bundle ids (comma-separated);
        SOAR_APPLE_JWKS_URL replaces Apple's key address (file:// works offline).

        Keys: JWT_SECRET signs tokens; without it a secret is generated and kept (0600) in
        <db>.jwt-secret (./soar.jwt-secret with Postgres; processes sharing a database need one
        JWT_SECRET). ANON_KEY and SERVICE_ROLE_KEY, when set, must be HS256 JWTs of that secret;
        otherwise both are derived from it. SIGINT or SIGTERM stops it after requests in flight.
        """

    let configuration: Server.Configuration
    let database: DatabaseChoice
    let synchronous: SQLiteSynchronous
    let migrations: MigrationsChoice
    let logLevel: Logger.Level
    let environment: [String: String]
    let emulator: EmulatorOptions?

    /// `--with-emulator`: where the in-process emulator listens and keeps its files.
    struct EmulatorOptions {
        var port: UInt16
        var directory: String
    }

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        environment = arguments.environment
        var configuration = Server.Configuration()
        configuration.host = arguments.value("--host") ?? "127.0.0.1"
        if let port = try arguments.port("--port") {
            configuration.port = port
        } else if let text = environment["SOAR_PORT"], !text.isEmpty {
            guard let port = UInt16(text) else { throw .configuration("SOAR_PORT must be a port number, not \"\(text)\"") }
            configuration.port = port
        }
        configuration.consoleHost = arguments.value("--console-host") ?? "127.0.0.1"
        if arguments.value("--console-port") == "off" {
            configuration.consolePort = nil
        } else if let port = try arguments.port("--console-port") {
            configuration.consolePort = port
        } else {
            configuration.consolePort = configuration.port == 0 ? 0 : configuration.port &+ 2
        }
        configuration.limits.threads = try arguments.integer("--threads", in: 1...256) ?? 4
        configuration.limits.maxBodySize = try arguments.integer("--max-body", in: 1024...(64 << 20)) ?? (1 << 20)
        configuration.limits.maxConnectionsPerAddress = try arguments.integer("--max-connections-per-ip", in: 0...1_000_000) ?? 256
        configuration.limits.headerTimeoutSeconds = try arguments.integer("--header-timeout", in: 1...3600) ?? 30
        configuration.limits.bodyTimeoutSeconds = try arguments.integer("--body-timeout", in: 1...3600) ?? 60
        configuration.publicMetrics = arguments.flag("--public-metrics")
        // As many connections as the descriptor limit (raised to its hard limit) leaves room for.
        configuration.limits.maxConnections = max(64, min(DescriptorLimit.raised() - 256, 100_000))
        configuration.tls = try Self.tls(certificate: arguments.value("--tls-cert"), key: arguments.value("--tls-key"))
        // Auth mail by Supabase's and GoTrue's variables: SMTP, links, templates, confirmation.
        do { configuration.email = try EmailSettings.load(environment: environment) } catch { throw .configuration(error.message) }
        if let confirm = arguments.value("--email-confirm") {
            guard ["required", "off"].contains(confirm) else { throw .usage("--email-confirm must be required or off, not \"\(confirm)\"") }
            configuration.email.confirmationRequired = confirm == "required"
        }
        // How long access tokens last (GoTrue's name), in seconds.
        if let text = environment["GOTRUE_JWT_EXP"], !text.isEmpty {
            guard let seconds = Int(text), (1...604_800).contains(seconds) else {
                throw .configuration("GOTRUE_JWT_EXP must be seconds between 1 and 604800, not \"\(text)\"")
            }
            configuration.tokenLifetime = seconds
        }
        // Push images: the URL phones reach the API at, and how long their signed URLs last.
        if let text = environment["SOAR_PUBLIC_URL"], !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw .configuration("SOAR_PUBLIC_URL must be an http(s) URL, not \"\(text)\"")
            }
            configuration.publicURL = text
        }
        if let text = environment["SOAR_PUSH_IMAGE_URL_SECONDS"], !text.isEmpty {
            guard let seconds = Int(text), (60...31_536_000).contains(seconds) else {
                throw .configuration("SOAR_PUSH_IMAGE_URL_SECONDS must be seconds between 60 and 31536000, not \"\(text)\"")
            }
            configuration.pushImageLifetime = seconds
        }
        if let text = environment["SOAR_STORAGE_FILE_SIZE_LIMIT"], !text.isEmpty {
            guard let bytes = Int64(text), (1...(1 << 40)).contains(bytes) else {
                throw .configuration("SOAR_STORAGE_FILE_SIZE_LIMIT must be a number of bytes, not \"\(text)\"")
            }
            configuration.storageLimits.fileSizeLimit = bytes
        }
        if let text = environment["SOAR_PUSH_DEFAULT_TIME_ZONE"], !text.isEmpty {
            guard let zone = TimeZone(identifier: text) else {
                throw .configuration("SOAR_PUSH_DEFAULT_TIME_ZONE must be a time zone name such as Europe/Paris, not \"\(text)\"")
            }
            configuration.pushFallbackTimeZone = zone
        }
        if let text = environment["SOAR_PUSH_FREQUENCY_CAPS"], !text.isEmpty {
            var caps: [String: Int] = [:]
            for item in text.split(separator: ",") {
                let pair = item.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, !pair[0].isEmpty, let count = Int(pair[1]), count >= 1 else {
                    throw .configuration("SOAR_PUSH_FREQUENCY_CAPS is kind=count pairs, comma-separated (promo=3,digest=1), not \"\(text)\"")
                }
                caps[pair[0]] = count
            }
            configuration.pushFrequencyCaps = caps
        }
        if let text = environment["SOAR_PUSH_CRITICAL_KINDS"] {
            configuration.criticalPushKinds = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        // Attempts per client address per 5 minutes (0: no limit), by GoTrue's names where it has them.
        for (name, limit) in [("SOAR_RATE_LIMIT_SIGN_IN", \AuthService.Limits.perAddress), ("GOTRUE_RATE_LIMIT_VERIFY", \.verifyPerAddress),
            ("GOTRUE_RATE_LIMIT_TOKEN_REFRESH", \.refreshPerAddress)]
        {
            guard let text = environment[name], !text.isEmpty else { continue }
            guard let value = Int(text), value >= 0 else { throw .configuration("\(name) must be a whole number of attempts (0: no limit), not \"\(text)\"") }
            configuration.authLimits[keyPath: limit] = value
        }
        // Realtime's limits per socket, by the names of Supabase Realtime's tenant settings.
        for (name, limit, range) in [
            ("REALTIME_MAX_CHANNELS_PER_CLIENT", \RealtimeServer.Limits.channelsPerSocket, 1...100_000),
            ("REALTIME_MAX_EVENTS_PER_SECOND", \.messagesPerSecond, 1...1_000_000), ("REALTIME_MAX_JOINS_PER_SECOND", \.joinsPerSecond, 1...100_000),
        ] {
            guard let text = environment[name], !text.isEmpty else { continue }
            guard let value = Int(text), range.contains(value) else {
                throw .configuration("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
            }
            configuration.realtimeLimits[keyPath: limit] = value
        }
        if let text = environment["REALTIME_MAX_PAYLOAD_SIZE_IN_KB"], !text.isEmpty {
            guard let kilobytes = Int(text), (1...65_536).contains(kilobytes) else {
                throw .configuration("REALTIME_MAX_PAYLOAD_SIZE_IN_KB must be kilobytes from 1 to 65536, not \"\(text)\"")
            }
            configuration.realtimeLimits.maxMessageBytes = kilobytes * 1024
        }
        // Asymmetric signing keys: a folder of P-256 keys, the last private one signing.
        if let folder = environment["SOAR_JWT_KEYS_DIR"].flatMap({ $0.isEmpty ? nil : $0 }) {
            do { configuration.signingKeys = try SigningKey.load(folder: folder) } catch { throw .configuration(error.message) }
        }
        // Sign in with Apple: GoTrue's variable for the app's bundle ids.
        let appleIDs = (environment["GOTRUE_EXTERNAL_APPLE_CLIENT_ID"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if !appleIDs.isEmpty {
            configuration.apple = AppleSignIn(clientIDs: appleIDs, keysURL: environment["SOAR_APPLE_JWKS_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? AppleSignIn.keysURL)
        }
        configuration.version = "soar \(SoarCLI.version)"
        database = try DatabaseChoice(arguments)
        if let directory = arguments.value("--storage-dir"), directory.isEmpty { throw .usage("--storage-dir is empty: give a directory") }
        configuration.storageDirectory = APNsEmulatorCommand.absolute(arguments.value("--storage-dir") ?? database.storageDirectory)
        self.configuration = configuration
        let mode = arguments.value("--synchronous") ?? "full"
        guard let synchronous = SQLiteSynchronous(rawValue: mode) else { throw .usage("--synchronous must be full or normal, not \"\(mode)\"") }
        if case .postgres = database, arguments.value("--synchronous") != nil {
            throw .usage("--synchronous is SQLite's; Postgres has its own synchronous_commit setting")
        }
        self.synchronous = synchronous
        migrations = try MigrationsChoice(arguments)
        let levelName = arguments.value("--log-level") ?? environment["SOAR_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(name: levelName) else { throw .usage("--log-level must be debug, info, warn or error, not \"\(levelName)\"") }
        logLevel = level
        if arguments.flag("--with-emulator") {
            emulator = EmulatorOptions(port: try arguments.port("--emulator-port") ?? 2197, directory: arguments.value("--emulator-dir") ?? ".soar/emulator")
        } else {
            guard arguments.value("--emulator-port") == nil, arguments.value("--emulator-dir") == nil else {
                throw .usage("--emulator-port and --emulator-dir go with --with-emulator")
            }
            emulator = nil
        }
    }

    func run(_ console: Console) async throws(CommandError) {
        let termination = Termination()
        var push: PushSettings.Loaded
        do { push = try PushSettings.load(environment) } catch { throw .configuration(error.description) }
        let local = try emulator.map { (options) throws(CommandError) in try LocalEmulator.start(options, host: configuration.host) }
        if let local, case .notConfigured = push {
            do { push = .configured(try local.pushSettings(bundleID: environment["APNS_BUNDLE_ID"])) } catch {
                local.emulator.stop()
                throw error
            }
        }
        // A start that fails leaves no database or secret behind that it made itself.
        let made = (database.files + [configuration.storageDirectory].compactMap { $0 }).filter { !FileManager.default.fileExists(atPath: $0) }
        func removeMade() { for path in made { try? FileManager.default.removeItem(atPath: path) } }
        let store: any Store
        let keys: APIKeys
        do { (store, keys) = try Self.open(database: database, app: try migrations.files(), synchronous: synchronous, environment: environment) } catch {
            local?.emulator.stop()
            removeMade()
            throw error
        }
        var serving = configuration
        if let emulator = local?.emulator {
            // The console's simulated device reads what the emulator recorded for its token.
            serving.emulatorControl = { method, path, body in emulator.control.handle(method: method, path: path, body: body) }
            serving.emulatorDeliveries = { token in
                emulator.state.deliveries.filter { $0.token == token }.map { EmulatedDelivery(apnsID: $0.apnsID, payload: $0.payload, time: $0.time) }
            }
        }
        if FileManager.default.fileExists(atPath: RoutesChoice.standard) {
            do { serving.routes = try RouteTable(file: RoutesChoice.standard) } catch {
                store.close()
                local?.emulator.stop()
                removeMade()
                throw .configuration(error.description)
            }
        }
        let server: Server
        do {
            server = try Server(configuration: serving, store: store, keys: keys, push: push, logger: Logger(level: logLevel))
        } catch {
            store.close()
            local?.emulator.stop()
            removeMade()
            throw .configuration(error.description)
        }
        console.print("API URL: \(server.url)")
        console.print("anon key: \(keys.anonKey)")
        console.print("service_role key: \(keys.serviceRoleKey)")
        console.print("database: \(store.location)")
        console.print("push: \(server.push.summary)")
        if let local {
            console.print("APNs emulator: sandbox \(local.emulator.url), production \(local.emulator.productionURL ?? local.emulator.url), control \(local.emulator.controlURL)")
        }
        console.print("schema: \(migrations.name)")
        if let directory = configuration.storageDirectory { console.print("storage: \(directory)") }
        if let url = server.consoleURL {
            let none = ((try? store.admins()) ?? []).isEmpty
            // The hint names soar as it was started (./scripts/run starts .build/release/soar).
            let soar = CommandLine.arguments.first.map { $0.hasSuffix("/soar") || $0 == "soar" ? $0 : "soar" } ?? "soar"
            console.print("console: \(url)" + (none ? " (no administrator yet: \(soar) admin add EMAIL --password-stdin)" : ""))
        }
        console.flush()
        await termination.wait()
        server.shutdown(grace: .seconds(10))
        local?.emulator.stop()
        console.warn("stopped")
    }

    /// The PEM certificate and key, read; nil without either option.
    static func tls(certificate: String?, key: String?) throws(CommandError) -> HTTPServer.TLS? {
        switch (certificate, key) {
        case (nil, nil): return nil
        case (let certificate?, let key?):
            func read(_ path: String, _ what: String, _ marker: String) throws(CommandError) -> String {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw .configuration("cannot read the TLS \(what) \(path): \(FileProblem.reason(path))")
                }
                let text = String(decoding: data, as: UTF8.self)
                guard text.contains("-----BEGIN ") && text.contains(marker) else {
                    throw .configuration("the TLS \(what) \(path) is not PEM (it should hold a \"-----BEGIN \(marker)\" block)")
                }
                return text
            }
            return HTTPServer.TLS(certificate: try read(certificate, "certificate", "CERTIFICATE"), key: try read(key, "key", "PRIVATE KEY"))
        default:
            throw .usage("--tls-cert and --tls-key go together")
        }
    }

    /// The store (migrated) and the API keys, or a configuration error saying what is wrong.
    static func open(
        database: DatabaseChoice, app: [MigrationFile], synchronous: SQLiteSynchronous = .full, environment: [String: String]
    ) throws(CommandError) -> (any Store, APIKeys) {
        let store = try database.open(app: app, synchronous: synchronous)
        do {
            let secret = try APIKeys.loadSecret(environment: environment["JWT_SECRET"], file: database.secretFile)
            let keys = try APIKeys(
                secret: secret, anonKey: environment["ANON_KEY"].flatMap { $0.isEmpty ? nil : $0 },
                serviceRoleKey: environment["SERVICE_ROLE_KEY"].flatMap { $0.isEmpty ? nil : $0 })
            return (store, keys)
        } catch {
            store.close()
            throw .configuration(error.message)
        }
    }
}
