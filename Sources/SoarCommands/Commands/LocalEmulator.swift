import Foundation
import SoarAPNs
import SoarCore
import SoarEmulator
import SoarPush

/// The APNs emulator `soar serve --with-emulator` runs in its own process: TLS files and a
/// development key kept in a directory, both environments delivered to it.
struct LocalEmulator {
    let emulator: APNsEmulator
    let files: EmulatorFiles

    static func start(_ options: ServeCommand.EmulatorOptions, host: String) throws(CommandError) -> LocalEmulator {
        let files = EmulatorFiles(directory: APNsEmulatorCommand.absolute(options.directory))
        var configuration = EmulatorConfiguration()
        configuration.host = host
        configuration.port = options.port
        configuration.controlPort = options.port == 0 ? 0 : options.port + 1
        configuration.productionPort = options.port == 0 ? 0 : options.port + 2
        configuration.keep = 1000
        do {
            try files.prepareCertificates()
            configuration.keys = [try files.developmentKey()]
            configuration.certificateFile = files.certificateFile
            configuration.keyFile = files.keyFile
            return LocalEmulator(emulator: try APNsEmulator(configuration), files: files)
        } catch {
            throw .configuration("the APNs emulator cannot start: \(error.description)\(options.port == 0 ? "" : " (--emulator-port 0 picks free ports)")")
        }
    }

    /// Push settings that deliver each environment to its listener here, with the development key.
    func pushSettings(bundleID: String?) throws(CommandError) -> PushSettings {
        let credentials: APNsCredentials
        do {
            let p8 = try String(contentsOfFile: files.developmentKeyFile, encoding: .utf8)
            credentials = try .token(teamID: DevelopmentKey.teamID, keyID: DevelopmentKey.keyID, p8: p8)
        } catch {
            throw .configuration("cannot read the emulator's development key \(files.developmentKeyFile): \(ErrorText.describe(error))")
        }
        let sandbox = APNsEnvironment(name: "sandbox", baseURL: emulator.url)
        let production = APNsEnvironment(name: "production", baseURL: emulator.productionURL ?? emulator.url)
        return PushSettings(
            credentials: credentials, bundleID: bundleID.flatMap { $0.isEmpty ? nil : $0 } ?? "com.soarstarter.SoarStarterSwift", caFile: files.caFile,
            destinations: [.sandbox: sandbox, .production: production])
    }
}
