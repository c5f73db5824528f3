import Foundation
import SoarAPNs
import SoarCore

/// `soar push send`: notifications to one or many devices through APNs (or the emulator).
struct PushSendCommand: Command {
    static let name = "push send"
    static let summary = "Send a notification to device tokens through APNs; one result line per token."
    static let options = [
        Option("--token", value: "HEX[,HEX...]", help: "Device token(s); repeatable."),
        Option("--tokens-file", value: "FILE", help: "One token a line (# comments, blank lines skipped); - reads standard input."),
        Option("--title", value: "T", help: "Alert title (with --body)."),
        Option("--body", value: "B", help: "Alert body."),
        Option("--deeplink", value: "URL", help: "A deeplink key for the tap, e.g. soar:///notifications."),
        Option("--payload", value: "FILE", help: "The whole payload, APNs JSON or a Simulator .apns file, instead of --title/--body."),
        Option("--push-type", value: "TYPE", help: "alert (default), background, voip, liveactivity, location, complication, ..."),
        Option("--priority", value: "N", help: "10, 5 or 1 (background defaults to 5)."),
        Option("--collapse-id", value: "ID", help: "apns-collapse-id, at most 64 bytes."),
        Option("--expiration", value: "UNIX", help: "apns-expiration in seconds since 1970; 0 means deliver now or never."),
        Option("--topic", value: "TOPIC", help: "apns-topic (default: the bundle id plus the push type's suffix)."),
        Option("--sandbox", help: "Apple's sandbox host (the default)."),
        Option("--production", help: "Apple's production host."),
        Option("--apns-url", value: "URL", help: "Base URL instead of Apple's host (APNS_URL), e.g. the emulator's."),
        Option("--ca-file", value: "PEM", help: "Extra CA to trust (APNS_CA_FILE)."),
        Option("--team-id", value: "ID", help: "APNS_TEAM_ID."),
        Option("--key-id", value: "ID", help: "APNS_KEY_ID."),
        Option("--bundle-id", value: "ID", help: "APNS_BUNDLE_ID."),
        Option("--key-file", value: "P8", help: "APNS_PRIVATE_KEY_FILE (or the key's text in APNS_PRIVATE_KEY)."),
        Option("--cert", value: "FILE", help: "Certificate auth: a PEM or .p12 client certificate (APNS_CERT_FILE)."),
        Option("--cert-key", value: "PEM", help: "The certificate's key file, for PEM (APNS_CERT_KEY_FILE)."),
        Option("--cert-password", value: "TEXT", help: "The .p12 or key password (APNS_CERT_PASSWORD)."),
        Option("--connections", value: "N", help: "HTTP/2 connections to open at most (default 4)."),
        Option("--streams", value: "N", help: "Streams per connection at most, below the server's limit (default 1000)."),
        Option("--retries", value: "N", help: "Retries for 429, 500, 503 and lost connections (default 3)."),
        Option("--json", help: "One JSON object per token instead of text."),
    ]
    static let discussion = """
        Flags win over the variables APNS_TEAM_ID, APNS_KEY_ID, APNS_BUNDLE_ID, APNS_PRIVATE_KEY or
        APNS_PRIVATE_KEY_FILE, APNS_URL, APNS_CA_FILE and APNS_ENVIRONMENT (sandbox or production).

        Example, against `soar apns-emulator`:
          soar push send --apns-url https://127.0.0.1:2197 --ca-file .soar/emulator/ca.pem \\
            --team-id SOARDEV001 --key-id SOARKEY001 --key-file .soar/emulator/AuthKey_SOARKEY001.p8 \\
            --bundle-id com.example.app --token 00aa11bb --title Hello --body World

        Exits 0 when every notification was delivered, 1 when any failed, 2 for usage or
        configuration errors, 3 when the server could not be reached at all.
        """

    let tokens: [String]
    /// Tokens given more than once, sent once.
    let duplicates: Int
    let template: APNsNotification
    let variables: [String: String]
    let json: Bool
    let connections: Int
    let streams: Int
    let retries: Int

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        var tokens = arguments.all("--token").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if let file = arguments.value("--tokens-file") { tokens += try Self.readTokens(file) }
        // Each device once: a token listed twice would get the notification twice.
        var seen = Set<String>(minimumCapacity: tokens.count)
        var unique: [String] = []
        unique.reserveCapacity(tokens.count)
        var duplicates = 0
        for token in tokens where !token.isEmpty {
            let key = Self.hasUppercase(token) ? token.lowercased() : token  // no copy for the usual lowercase
            if seen.insert(key).inserted { unique.append(token) } else { duplicates += 1 }
        }
        self.tokens = unique
        self.duplicates = duplicates

        let pushType = try arguments.pushType()
        let payload: Payload
        if let file = arguments.value("--payload") {
            guard arguments.value("--title") == nil, arguments.value("--body") == nil else { throw .usage("use --payload or --title/--body, not both") }
            do {
                payload = try PayloadFileReader.read(file).payload
            } catch {
                // An unusable payload is a usage error here: nothing was sent.
                throw .usage(error.message)
            }
        } else if let title = arguments.value("--title"), let body = arguments.value("--body") {
            var custom: [String: JSONValue] = [:]
            if let link = arguments.value("--deeplink") { custom["deeplink"] = .string(link) }
            payload = pushType == .background
                ? Payload(aps: APS(contentAvailable: true), custom: custom)
                : .alert(title: title, body: body, custom: custom)
        } else {
            throw .usage("give --title and --body, or --payload FILE")
        }
        var priority: APNsPriority?
        if let text = arguments.value("--priority") {
            guard let value = Int(text).flatMap(APNsPriority.init(rawValue:)) else { throw .usage("--priority must be 10, 5 or 1, not \(text)") }
            priority = value
        }
        let expiration = try arguments.integer("--expiration").map { Date(timeIntervalSince1970: TimeInterval($0)) }
        template = APNsNotification(token: "", payload: payload, pushType: pushType, topic: arguments.value("--topic"), priority: priority, expiration: expiration, collapseID: arguments.value("--collapse-id"))
        if arguments.flag("--sandbox") && arguments.flag("--production") { throw .usage("choose --sandbox or --production, not both") }

        var variables = arguments.environment
        let flags: [(String, String)] = [
            ("--team-id", APNsConfiguration.Variable.teamID), ("--key-id", APNsConfiguration.Variable.keyID),
            ("--bundle-id", APNsConfiguration.Variable.bundleID), ("--key-file", APNsConfiguration.Variable.privateKeyFile),
            ("--apns-url", APNsConfiguration.Variable.url), ("--ca-file", APNsConfiguration.Variable.caFile),
            ("--cert", APNsConfiguration.Variable.certificateFile), ("--cert-key", APNsConfiguration.Variable.certificateKeyFile),
            ("--cert-password", APNsConfiguration.Variable.certificatePassword),
        ]
        for (flag, variable) in flags {
            if let value = arguments.value(flag) { variables[variable] = value }
        }
        if arguments.value("--key-file") != nil { variables[APNsConfiguration.Variable.privateKey] = nil }
        if arguments.flag("--sandbox") { variables[APNsConfiguration.Variable.environment] = "sandbox" }
        if arguments.flag("--production") { variables[APNsConfiguration.Variable.environment] = "production" }
        self.variables = variables
        json = arguments.flag("--json")
        connections = try arguments.integer("--connections", in: 1...64) ?? 4
        streams = try arguments.integer("--streams", in: 1...10_000) ?? 1000
        retries = try arguments.integer("--retries", in: 0...20) ?? 3
    }

    func validate() throws(CommandError) {
        guard !tokens.isEmpty else { throw .usage("no device token: give --token HEX or --tokens-file FILE") }
        // Nothing is sent when a token could never be one: bad input is the caller's to fix.
        let bad = tokens.filter { !$0.utf8.allSatisfy(\.isHexDigit) }
        if let first = bad.first {
            throw .usage("\(bad.count == 1 ? "a token is" : "\(bad.count) tokens are") not hex (device tokens are hex digits): \(first.prefix(80))")
        }
        // Apple's rules that do not depend on the token (size, collapse id, priority) are checked
        // once, before anything is sent, rather than failing every token alike.
        var probe = template
        probe.token = "00"
        do {
            _ = try APNsRequest(probe, bundleID: "com.example.app")
        } catch {
            throw .usage(error.description)
        }
    }

    /// The client the flags and variables describe.
    func makeClient() throws(CommandError) -> APNsClient {
        var configuration: APNsConfiguration
        do {
            configuration = try APNsConfiguration(variables: variables)
        } catch {
            throw .configuration(error.description)
        }
        // Every notification needs a topic: without one, none could be sent.
        if template.topic == nil && (configuration.bundleID ?? "").isEmpty {
            throw .configuration("no topic: give --bundle-id (or set APNS_BUNDLE_ID), or --topic")
        }
        configuration.maxConnections = connections
        configuration.maxStreamsPerConnection = streams
        configuration.retry.maxRetries = retries
        do { return try APNsClient(configuration) } catch { throw .configuration(error.description) }
    }

    /// The notifications to send, made one at a time from the template.
    func notifications(_ tokens: ArraySlice<String>) -> LazyMapSequence<ArraySlice<String>, APNsNotification> {
        tokens.lazy.map { [template] token in
            var notification = template
            notification.token = token
            return notification
        }
    }

    func run(_ console: Console) async throws(CommandError) {
        if duplicates > 0 { console.warn("soar push send: \(duplicates) duplicate token(s) skipped; each device gets the notification once") }
        let client = try makeClient()
        defer { client.shutdown() }
        let configuration = client.configuration
        let tally = Tally(progress: Progress(total: tokens.count, console: console))
        let notifications = notifications(tokens[...])
        let json = json
        let watch = Self.reportLongWaits(tally, total: tokens.count, url: configuration.environment.baseURL, timeout: configuration.timeout, console: console)
        await client.send(notifications) { result in
            tally.record(result, line: json ? Self.json(result) : Self.text(result), console: console)
        }
        watch.cancel()
        tally.finish()
        let counts = tally.counts
        if counts.misconfigured == tokens.count, let reason = counts.firstReason { throw .configuration(reason) }
        if counts.credentialsRefused == tokens.count, let reason = counts.firstRefusal {
            throw .configuration("APNs refused the credentials (\(reason)): check APNS_KEY_ID, APNS_TEAM_ID and the key, or the certificate")
        }
        if counts.unreachable == tokens.count { throw .unreachable("could not reach \(configuration.environment.baseURL)") }
        if counts.failed > 0 {
            let unknown = counts.unknown > 0 ? "; \(counts.unknown) may have been delivered (no answer came back)" : ""
            throw .failure("\(counts.failed) of \(tokens.count) notification(s) not confirmed delivered\(unknown)")
        }
    }

    /// While no answer comes for a while, says on standard error what the run is waiting for.
    static func reportLongWaits(_ tally: Tally, total: Int, url: String, timeout: Duration, console: Console) -> Task<Void, Never> {
        Task {
            var seen = -1
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                guard !Task.isCancelled else { return }
                let done = tally.completed
                if done == seen {
                    console.warn("waiting for \(url): no answer for 5 s; \(done) of \(total) notification(s) done (each waits at most \(timeout.components.seconds) s for its answer)")
                }
                seen = done
            }
        }
    }

    static func text(_ result: APNsResult) -> String {
        switch result.outcome {
        case .delivered(let id, let unique):
            // Built in one buffer: this line is printed for nearly every token of a large send.
            var line = "delivered "
            line.reserveCapacity(32 + result.notification.token.utf8.count + id.utf8.count + (unique?.utf8.count ?? 0))
            line += result.notification.token
            line += " apns-id="
            line += id
            if let unique { line += " unique-id=" + unique }
            return line
        case .failed(let failure) where failure.mayHaveBeenDelivered:
            return "unknown \(result.notification.token) \(failure) [may have been delivered]"
        case .failed(let failure):
            let note = failure.isInvalidToken ? " [invalid token: remove it]" : failure.classification == .retryable ? " [retryable]" : ""
            return "failed \(result.notification.token) \(failure)\(note)"
        }
    }

    static func json(_ result: APNsResult) -> String {
        var object: [String: JSONValue] = ["token": .string(result.notification.token)]
        switch result.outcome {
        case .delivered(let id, let unique):
            object["status"] = 200
            object["apns_id"] = .string(id)
            if let unique { object["unique_id"] = .string(unique) }
        case .failed(let failure):
            object["status"] = .int(failure.status)
            object["reason"] = .string(failure.reason.rawValue)
            object["class"] = .string(failure.classification.rawValue)
            if failure.mayHaveBeenDelivered { object["may_have_been_delivered"] = true }
            object["attempts"] = .int(failure.attempts)
            if let id = failure.apnsID { object["apns_id"] = .string(id) }
            if let detail = failure.detail { object["detail"] = .string(detail) }
            if let timestamp = failure.timestamp { object["timestamp"] = .int(Int(timestamp.timeIntervalSince1970 * 1000)) }
        }
        return JSONValue.object(object).jsonText
    }

    /// Whether `text` has an ASCII capital, read straight from its bytes (100,000 tokens are checked).
    static func hasUppercase(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in bytes.contains { $0 &- 65 < 26 } } ?? text.utf8.contains { $0 &- 65 < 26 }
    }

    static func readTokens(_ file: String) throws(CommandError) -> [String] {
        let data = try InputFile.read(file)
        func blank(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 }
        let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data  // a byte-order mark is not part of a token
        return text.withUnsafeBytes { bytes in
            var tokens: [String] = []
            tokens.reserveCapacity(bytes.count / 65 + 1)
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != 10 { end += 1 }
                var (first, last) = (start, end)
                while first < last, blank(bytes[first]) { first += 1 }
                while last > first, blank(bytes[last - 1]) { last -= 1 }
                if first < last, bytes[first] != UInt8(ascii: "#") {
                    tokens.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self))
                }
                start = end + 1
            }
            return tokens
        }
    }
}

/// Counts results and prints their lines as they arrive on the transport's thread.
final class Tally: @unchecked Sendable {
    struct Counts {
        var completed = 0
        var failed = 0
        /// Never reached the server.
        var unreachable = 0
        /// The server cannot be used as configured (certificate, no HTTP/2).
        var misconfigured = 0
        /// Left, and the answer was lost.
        var unknown = 0
        var firstReason: String?
        /// APNs answered 403: the provider token or certificate was refused.
        var credentialsRefused = 0
        var firstRefusal: String?
    }

    private let progress: Progress
    private let state = Locked(Counts())

    init(progress: Progress) { self.progress = progress }

    /// Counted and printed under the lock, so lines never interleave with the progress bar.
    func record(_ result: APNsResult, line: String, console: Console) {
        state.withLock { state in
            count(result, in: &state)
            progress.clear()
            console.print(line)
            progress.advance()
        }
    }

    private func count(_ result: APNsResult, in state: inout Counts) {
        state.completed += 1
        if let failure = result.outcome.failure {
            state.failed += 1
            if failure.mayHaveBeenDelivered { state.unknown += 1 }
            if failure.status == 403 {
                state.credentialsRefused += 1
                if state.firstRefusal == nil { state.firstRefusal = failure.reason.rawValue }
            }
            switch failure.transportError?.kind {
            case .unreachable? where !failure.mayHaveBeenDelivered: state.unreachable += 1
            case .misconfigured?:
                state.misconfigured += 1
                if state.firstReason == nil { state.firstReason = failure.transportError?.message }
            default: break
            }
        }
    }

    func finish() { progress.finish() }

    var counts: Counts { state.withLock { $0 } }

    var completed: Int { counts.completed }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool { (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self) }
}
