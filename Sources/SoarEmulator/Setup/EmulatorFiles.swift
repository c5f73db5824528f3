import Foundation
import SoarCore
import SoarCrypto

/// The files an emulator keeps between runs in its directory: a throwaway CA and server
/// certificate, and a development provider key, each made on first start.
public struct EmulatorFiles: Sendable {
    public let directory: String
    public var caFile: String { directory + "/ca.pem" }
    public var certificateFile: String { directory + "/server.pem" }
    public var keyFile: String { directory + "/server-key.pem" }
    public var developmentKeyFile: String { directory + "/AuthKey_\(DevelopmentKey.keyID).p8" }

    public init(directory: String) { self.directory = directory }

    /// Makes whatever is missing: the CA and a certificate for localhost, 127.0.0.1 and ::1.
    ///
    /// - Throws: ``EmulatorError`` when the directory cannot be written.
    public func prepareCertificates() throws(EmulatorError) {
        let fm = FileManager.default
        guard !fm.fileExists(atPath: certificateFile) || !fm.fileExists(atPath: keyFile) || !fm.fileExists(atPath: caFile) else { return }
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let ca = try CertificateAuthority.generate(commonName: "Soar APNs emulator CA")
            let server = try ca.issueServer(dnsNames: ["localhost", "api.push.apple.com", "api.sandbox.push.apple.com"], ipAddresses: ["127.0.0.1", "::1"])
            try ca.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            try server.certificatePEM.write(toFile: certificateFile, atomically: true, encoding: .utf8)
            try server.key.privatePEM().write(toFile: keyFile, atomically: true, encoding: .utf8)
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        } catch {
            throw EmulatorError("cannot prepare TLS files in \(directory): \(ErrorText.describe(error))")
        }
    }

    /// The development key (made on first use) as a registered key.
    public func developmentKey() throws(EmulatorError) -> RegisteredKey {
        do {
            if !FileManager.default.fileExists(atPath: developmentKeyFile) {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try DevelopmentKey.write(try P256Key.generate(), to: developmentKeyFile)
            }
            let pem = try String(contentsOfFile: developmentKeyFile, encoding: .utf8)
            return RegisteredKey(teamID: DevelopmentKey.teamID, keyID: DevelopmentKey.keyID, publicKey: try P256Key(publicPEM: pem))
        } catch {
            throw EmulatorError("cannot prepare the development key \(developmentKeyFile): \(ErrorText.describe(error))")
        }
    }
}

/// The ids of development keys: fixed, so scripts and the emulator agree without configuration.
public enum DevelopmentKey {
    public static let teamID = "SOARDEV001"
    public static let keyID = "SOARKEY001"

    /// Writes a private key as a .p8 file readable only by its owner.
    public static func write(_ key: P256Key, to path: String) throws {
        try key.privatePEM().write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}
