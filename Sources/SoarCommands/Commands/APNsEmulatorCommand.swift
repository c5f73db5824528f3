import Foundation
import SoarCrypto
import SoarEmulator

/// `soar apns-emulator`: a local APNs look-alike speaking HTTP/2 over TLS, until SIGINT or SIGTERM.
struct APNsEmulatorCommand: Command {
    static let name = "apns-emulator"
    static let summary = "Run a local APNs look-alike (HTTP/2 + TLS) that validates, records and injects faults."
    static let options = [
        Option("--port", value: "N", help: "APNs port (default 2197; 0 picks a free one)."),
        Option("--production-port", value: "N", help: "A second APNs port for production (0: a free one); --port is then the sandbox."),
        Option("--control-port", value: "N", help: "Control API port, plain HTTP (default 2198, or a free one with --port 0)."),
        Option("--host", value: "IP", help: "Address to listen on (default 127.0.0.1)."),
        Option("--dir", value: "DIR", help: "Where the CA, server certificate and development key live (default .soar/emulator)."),
        Option("--cert", value: "PEM", help: "Server certificate chain instead of the generated one (with --key)."),
        Option("--key", value: "PEM", help: "Server private key for --cert."),
        Option("--h2c", help: "Cleartext HTTP/2 with prior knowledge instead of TLS."),
        Option("--client-ca", value: "PEM", help: "Accept client certificates issued by this CA (certificate-based auth)."),
        Option("--key-id", value: "ID", help: "A trusted provider key id; repeat with --team-id and --public-key."),
        Option("--team-id", value: "ID", help: "The team of the --key-id at the same position."),
        Option("--public-key", value: "PEM", help: "The public key (or .p8) of the --key-id at the same position."),
        Option("--topic", value: "BUNDLE-ID", help: "Allow only this bundle id (and its suffixes); repeatable. Default: any."),
        Option("--unregistered", value: "HEX", help: "Answer this token 410 Unregistered; repeatable."),
        Option("--bad", value: "HEX", help: "Answer this token 400 BadDeviceToken; repeatable."),
        Option("--fail-status", value: "N", help: "Inject this status (503, 500 or 429) ..."),
        Option("--fail-every", value: "N", help: "... on every Nth request (default 1)."),
        Option("--latency-ms", value: "N", help: "Hold each answer N milliseconds."),
        Option("--goaway-after", value: "N", help: "Send GOAWAY once a connection has carried N streams."),
        Option("--drop-after", value: "N", help: "Drop a connection, unanswered, at its Nth stream."),
        Option("--refuse-connections", help: "Start without accepting connections (POST /faults {\"accept\":true} opens)."),
        Option("--initial-streams", value: "N", help: "SETTINGS_MAX_CONCURRENT_STREAMS until the first accepted request (default 1, as APNs)."),
        Option("--max-streams", value: "N", help: "SETTINGS_MAX_CONCURRENT_STREAMS after the first accepted request (default 1000)."),
        Option("--keep", value: "N", help: "Deliveries kept for GET /deliveries (default 10000)."),
        Option("--log", value: "FILE", help: "Append delivery JSON lines to FILE instead of standard output."),
        Option("--quiet", help: "Print no delivery lines."),
    ]
    static let discussion = """
        Prints three lines: the APNs URL, the CA file to trust, and the control URL (and a fourth,
        "production:", with --production-port, where tokens registered to one environment with
        POST /tokens/HEX/environment get BadDeviceToken on the other); then one JSON line
        per accepted notification. Without --key-id it trusts a development key kept in --dir (team
        \(DevelopmentKey.teamID), key \(DevelopmentKey.keyID)), whose path it prints on standard error.

        Control API (JSON): GET /deliveries, DELETE /deliveries, POST /tokens/HEX/unregister,
        POST /tokens/HEX/bad, POST /tokens/HEX/environment, DELETE /tokens/HEX, GET /stats, GET|POST|DELETE /faults, POST /reset.
        The same endpoints answer under /_emulator/ on the APNs port.
        """

    var configuration = EmulatorConfiguration()
    let files: EmulatorFiles
    let customCertificate: Bool
    let logFile: String?
    let quiet: Bool
    let keyIDs: [String]
    let teamIDs: [String]
    let publicKeys: [String]

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        configuration.host = arguments.value("--host") ?? "127.0.0.1"
        configuration.port = try arguments.port("--port") ?? 2197
        // A free APNs port means a free control port too, unless one is named: two emulators can run.
        configuration.controlPort = try arguments.port("--control-port") ?? (configuration.port == 0 ? 0 : 2198)
        configuration.productionPort = try arguments.port("--production-port")
        configuration.h2c = arguments.flag("--h2c")
        configuration.clientCAFile = arguments.value("--client-ca")
        let topics = arguments.all("--topic")
        configuration.allowedTopics = topics.isEmpty ? nil : Set(topics)
        configuration.unregistered = arguments.all("--unregistered")
        configuration.bad = arguments.all("--bad")
        configuration.faults.status = try arguments.integer("--fail-status", in: 429...503)
        if let status = configuration.faults.status, ![429, 500, 503].contains(status) {
            throw .usage("--fail-status must be 429, 500 or 503")
        }
        configuration.faults.every = try arguments.integer("--fail-every", in: 1...Int.max) ?? 1
        configuration.faults.latencyMilliseconds = try arguments.integer("--latency-ms", in: 0...600_000) ?? 0
        configuration.faults.goawayAfter = try arguments.integer("--goaway-after", in: 1...Int.max)
        configuration.faults.dropAfter = try arguments.integer("--drop-after", in: 1...Int.max)
        configuration.faults.accepting = !arguments.flag("--refuse-connections")
        configuration.initialStreamLimit = UInt32(try arguments.integer("--initial-streams", in: 1...1_000_000) ?? 1)
        configuration.raisedStreamLimit = UInt32(try arguments.integer("--max-streams", in: 1...1_000_000) ?? 1000)
        configuration.keep = try arguments.integer("--keep", in: 1...10_000_000) ?? 10_000
        files = EmulatorFiles(directory: arguments.value("--dir") ?? ".soar/emulator")
        customCertificate = arguments.value("--cert") != nil
        configuration.certificateFile = arguments.value("--cert")
        configuration.keyFile = arguments.value("--key")
        logFile = arguments.value("--log")
        quiet = arguments.flag("--quiet")
        keyIDs = arguments.all("--key-id")
        teamIDs = arguments.all("--team-id")
        publicKeys = arguments.all("--public-key")
    }

    func validate() throws(CommandError) {
        if (configuration.certificateFile == nil) != (configuration.keyFile == nil) { throw .usage("--cert and --key go together") }
        guard keyIDs.count == teamIDs.count, keyIDs.count == publicKeys.count else {
            throw .usage("give each --key-id a --team-id and a --public-key (got \(keyIDs.count), \(teamIDs.count) and \(publicKeys.count))")
        }
    }

    func run(_ console: Console) async throws(CommandError) {
        let termination = Termination()
        var configuration = self.configuration
        configuration.keys = try loadKeys(console)
        if !configuration.h2c && !customCertificate {
            do { try files.prepareCertificates() } catch { throw .configuration(error.description) }
            configuration.certificateFile = files.certificateFile
            configuration.keyFile = files.keyFile
        }
        configuration.deliveryLog = try deliveryLog(console)
        let emulator: APNsEmulator
        do {
            emulator = try APNsEmulator(configuration)
        } catch {
            throw .configuration(error.description)
        }
        console.print("APNs emulator: \(emulator.url)")
        console.print("CA file: \(configuration.h2c ? "none (h2c)" : customCertificate ? configuration.certificateFile! : Self.absolute(files.caFile))")
        console.print("control: \(emulator.controlURL)")
        if let production = emulator.productionURL { console.print("production: \(production)") }
        console.flush()
        await termination.wait()
        emulator.stop()
        let stats = emulator.state.deliveries.count
        console.warn("stopped (\(stats) deliveries kept)")
    }

    private func loadKeys(_ console: Console) throws(CommandError) -> [RegisteredKey] {
        if keyIDs.isEmpty {
            do {
                let key = try files.developmentKey()
                console.warn("development key: APNS_TEAM_ID=\(key.teamID) APNS_KEY_ID=\(key.keyID) APNS_PRIVATE_KEY_FILE=\(Self.absolute(files.developmentKeyFile))")
                return [key]
            } catch {
                throw .configuration(error.description)
            }
        }
        var keys: [RegisteredKey] = []
        for index in keyIDs.indices {
            guard let pem = try? String(contentsOfFile: publicKeys[index], encoding: .utf8) else {
                throw .configuration("cannot read the public key \(publicKeys[index])")
            }
            do {
                keys.append(RegisteredKey(teamID: teamIDs[index], keyID: keyIDs[index], publicKey: try P256Key(publicPEM: pem)))
            } catch {
                throw .configuration("\(publicKeys[index]) is not an EC P-256 key: \(error.description)")
            }
        }
        return keys
    }

    private func deliveryLog(_ console: Console) throws(CommandError) -> (@Sendable (String) -> Void)? {
        if quiet { return nil }
        guard let logFile else {
            return {
                console.print($0)
                console.flush()
            }
        }
        if !FileManager.default.fileExists(atPath: logFile) { _ = FileManager.default.createFile(atPath: logFile, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: logFile) else { throw .configuration("cannot write \(logFile)") }
        handle.seekToEndOfFile()
        return { handle.write(Data(($0 + "\n").utf8)) }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
