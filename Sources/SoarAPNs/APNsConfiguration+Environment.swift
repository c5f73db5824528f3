import Foundation
import SoarCore

extension APNsConfiguration {
    /// The variable names, as the seeds and Supabase's edge-function secrets spell them.
    public enum Variable {
        public static let teamID = "APNS_TEAM_ID"
        public static let keyID = "APNS_KEY_ID"
        public static let bundleID = "APNS_BUNDLE_ID"
        public static let privateKey = "APNS_PRIVATE_KEY"
        public static let privateKeyFile = "APNS_PRIVATE_KEY_FILE"
        public static let url = "APNS_URL"
        public static let caFile = "APNS_CA_FILE"
        public static let environment = "APNS_ENVIRONMENT"
        /// Certificate-based auth instead of a key.
        public static let certificateFile = "APNS_CERT_FILE"
        public static let certificateKeyFile = "APNS_CERT_KEY_FILE"
        public static let certificatePassword = "APNS_CERT_PASSWORD"
    }

    /// Reads credentials and destination from variables (a flag already merged in wins).
    ///
    /// Token auth needs `APNS_TEAM_ID`, `APNS_KEY_ID` and the key as text (`APNS_PRIVATE_KEY`,
    /// where `\n` may stand for newlines) or a path (`APNS_PRIVATE_KEY_FILE`); `APNS_CERT_FILE`
    /// selects certificate auth instead. `APNS_URL` replaces Apple's host; otherwise
    /// `APNS_ENVIRONMENT` picks `sandbox` (the default) or `production`.
    ///
    /// - Throws: ``APNsConfigurationError`` naming what is missing or unreadable; secrets are never echoed.
    public init(variables: [String: String], defaultEnvironment: APNsEnvironment = .sandbox) throws(APNsConfigurationError) {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        let credentials: APNsCredentials
        if let certificate = value(Variable.certificateFile) {
            guard FileManager.default.isReadableFile(atPath: certificate) else { throw .init("cannot read the certificate \(certificate): \(FileProblem.reason(certificate))") }
            credentials = .certificate(.init(certificateFile: certificate, keyFile: value(Variable.certificateKeyFile), password: value(Variable.certificatePassword)))
        } else {
            let missing = [Variable.teamID, Variable.keyID].filter { value($0) == nil }
            var keyText = value(Variable.privateKey)?.replacingOccurrences(of: "\\n", with: "\n")
            if keyText == nil, let path = value(Variable.privateKeyFile) {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .init("cannot read the APNs key file \(path): \(FileProblem.reason(path))") }
                keyText = text
            }
            guard missing.isEmpty, let keyText else {
                let all = missing + (keyText == nil ? ["\(Variable.privateKey) or \(Variable.privateKeyFile)"] : [])
                throw .init("APNs is not configured: set \(all.joined(separator: ", "))")
            }
            credentials = try .token(teamID: value(Variable.teamID)!, keyID: value(Variable.keyID)!, p8: keyText)
        }
        let environment: APNsEnvironment
        if let url = value(Variable.url) {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw .init("\(Variable.url) must start with https:// or http://, not \(url)") }
            environment = .custom(url: url)
        } else if let name = value(Variable.environment) {
            guard let named = APNsEnvironment(named: name) else { throw .init("\(Variable.environment) must be sandbox or production, not \(name)") }
            environment = named
        } else {
            environment = defaultEnvironment
        }
        self.init(credentials: credentials, environment: environment, bundleID: value(Variable.bundleID))
        if let caFile = value(Variable.caFile) {
            guard FileManager.default.isReadableFile(atPath: caFile) else { throw .init("cannot read the CA file \(caFile): \(FileProblem.reason(caFile))") }
            self.caFile = caFile
        }
    }
}
