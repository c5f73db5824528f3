import Foundation

/// `soar apns-emulator` in a child process, with the `APNS_*` variables that point a `soar serve`
/// at it (the development key it writes into `directory`).
public struct EmulatorProcess {
    public let process: BackgroundProcess
    public let url: String
    public let caFile: String
    /// The control API's base URL (`/stats`, `/faults`, `/deliveries`).
    public let control: String
    public let apnsEnvironment: [String: String]

    /// - Parameter options: flags after `--port 0 --dir … --quiet` (`--keep`, faults, latency).
    public init(directory: String, _ options: [String] = []) throws {
        let process = try BackgroundProcess(SoarBinary.path, ["apns-emulator", "--port", "0", "--dir", directory, "--quiet"] + options)
        self.process = process
        func line(_ label: String) throws -> String {
            guard let line = process.readLine(), line.hasPrefix(label) else {
                throw FixtureError("the emulator did not print \(label)…: \(process.standardError)")
            }
            return String(line.dropFirst(label.count))
        }
        let (url, caFile) = (try line("APNs emulator: "), try line("CA file: "))
        (self.url, self.caFile, control) = (url, caFile, try line("control: "))
        apnsEnvironment = [
            "APNS_URL": url, "APNS_CA_FILE": caFile, "APNS_TEAM_ID": "SOARDEV001", "APNS_KEY_ID": "SOARKEY001",
            "APNS_PRIVATE_KEY_FILE": directory + "/AuthKey_SOARKEY001.p8", "APNS_BUNDLE_ID": "com.example",
        ]
    }

    /// Stops it; returns its exit status.
    @discardableResult
    public func stop() -> Int32 { process.stop() }
}
