import Foundation
import SoarAPNs
import SoarCore
import SoarCrypto
import SoarEmulator
import SoarPush

/// An APNs emulator on a free port with its own TLS files and a trusted provider key, stopped
/// and cleaned up when released.
public final class EmulatorFixture: @unchecked Sendable {
    public let directory = TemporaryDirectory("soar-emulator")
    public let files: EmulatorFiles
    public let emulator: APNsEmulator
    /// The provider key the emulator trusts, with its ids.
    public let key: P256Key
    public let teamID = "TEAM123456"
    public let keyID = "KEY1234567"
    public let keyFile: String
    public static let topic = "com.soarstarter.SoarStarterSwift"

    public init(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws {
        files = EmulatorFiles(directory: directory.path)
        try files.prepareCertificates()
        key = try P256Key.generate()
        keyFile = directory.path + "/AuthKey_\(keyID).p8"
        try DevelopmentKey.write(key, to: keyFile)
        var configuration = EmulatorConfiguration()
        configuration.controlPort = 0
        configuration.certificateFile = files.certificateFile
        configuration.keyFile = files.keyFile
        configuration.keys = [RegisteredKey(teamID: teamID, keyID: keyID, publicKey: try P256Key(publicPEM: key.publicPEM()))]
        configure(&configuration)
        emulator = try APNsEmulator(configuration)
    }

    deinit { emulator.stop() }

    public var url: String { emulator.url }
    public var caFile: String { files.caFile }

    /// A provider token signed by the trusted key (or by `key`, to test rejections).
    public func providerToken(issuedAt: Date = Date(), keyID: String? = nil, teamID: String? = nil, signer: P256Key? = nil) throws -> String {
        try JWT(header: ["kid": .string(keyID ?? self.keyID)], claims: ["iss": .string(teamID ?? self.teamID), "iat": .int(Int(issuedAt.timeIntervalSince1970))])
            .signed(with: signer ?? key)
    }

    /// Push settings that send each environment to its listener here (both to the one listener
    /// without a production port), with the trusted key.
    public func pushSettings() throws -> PushSettings.Loaded {
        let p8 = try String(contentsOfFile: keyFile, encoding: .utf8)
        let sandbox = APNsEnvironment(name: "sandbox", baseURL: url)
        let production = APNsEnvironment(name: "production", baseURL: emulator.productionURL ?? url)
        return .configured(
            PushSettings(
                credentials: try .token(teamID: teamID, keyID: keyID, p8: p8), bundleID: Self.topic, caFile: caFile,
                destinations: [.sandbox: sandbox, .production: production]))
    }

    /// Calls the control API on its own port.
    public func control(_ method: String, _ path: String, body: String? = nil) throws -> ProcessResult {
        var arguments = ["-s", "-X", method, "\(emulator.controlURL)\(path)"]
        if let body { arguments += ["-d", body] }
        return try ProcessRunner.run("curl", arguments)
    }
}
