import Foundation
import SoarAPNs

/// Apple's credentials and where each environment's notifications go, read once from the
/// environment variables (the seed's edge-function secrets). Never logged, never returned.
public struct PushSettings: Sendable {
    public var credentials: APNsCredentials
    /// `apns-topic` for rows that do not name their app.
    public var bundleID: String
    public var caFile: String?
    public var destinations: [PushEnvironment: APNsEnvironment]
    /// Used when neither the request nor the device's row names an environment.
    public var defaultEnvironment: PushEnvironment

    public init(
        credentials: APNsCredentials, bundleID: String, caFile: String? = nil,
        destinations: [PushEnvironment: APNsEnvironment] = [.sandbox: .sandbox, .production: .production],
        defaultEnvironment: PushEnvironment = .sandbox
    ) {
        self.credentials = credentials
        self.bundleID = bundleID
        self.caFile = caFile
        self.destinations = destinations
        self.defaultEnvironment = defaultEnvironment
    }

    /// What the variables say: ready to send, or which variables are missing.
    public enum Loaded: Sendable {
        case configured(PushSettings)
        case notConfigured(missing: [String])
    }

    /// Nothing set: every variable token auth needs is missing.
    public static let unset = Loaded.notConfigured(missing: [
        APNsConfiguration.Variable.teamID, APNsConfiguration.Variable.keyID,
        "\(APNsConfiguration.Variable.privateKey) (or \(APNsConfiguration.Variable.privateKeyFile))", APNsConfiguration.Variable.bundleID,
    ])

    public static let sandboxURL = "APNS_SANDBOX_URL"
    public static let productionURL = "APNS_PRODUCTION_URL"

    /// Reads `APNS_TEAM_ID`, `APNS_KEY_ID`, `APNS_PRIVATE_KEY` or `APNS_PRIVATE_KEY_FILE` (or a
    /// certificate), `APNS_BUNDLE_ID`, `APNS_ENVIRONMENT`, `APNS_CA_FILE`, and the destinations:
    /// `APNS_SANDBOX_URL` and `APNS_PRODUCTION_URL` each win over `APNS_URL`, which wins over Apple's hosts.
    ///
    /// - Throws: ``APNsConfigurationError`` when a variable is set but unusable (an unreadable
    ///   file, a key that does not parse, a bad URL): a mistake to fix before serving.
    public static func load(_ variables: [String: String]) throws(APNsConfigurationError) -> Loaded {
        typealias Name = APNsConfiguration.Variable
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        var missing: [String] = []
        if value(Name.certificateFile) == nil {
            missing = [Name.teamID, Name.keyID].filter { value($0) == nil }
            if value(Name.privateKey) == nil && value(Name.privateKeyFile) == nil { missing.append("\(Name.privateKey) (or \(Name.privateKeyFile))") }
        }
        if value(Name.bundleID) == nil { missing.append(Name.bundleID) }
        guard missing.isEmpty, let bundleID = value(Name.bundleID) else { return .notConfigured(missing: missing) }

        var generic = variables
        generic[Name.url] = nil
        let apns = try APNsConfiguration(variables: generic)
        var defaultEnvironment = PushEnvironment.sandbox
        if let name = value(Name.environment) {
            guard let named = PushEnvironment(named: name) else { throw .init("\(Name.environment) must be sandbox or production, not \(name)") }
            defaultEnvironment = named
        }
        var destinations: [PushEnvironment: APNsEnvironment] = [:]
        for (environment, variable, apple) in [(PushEnvironment.sandbox, sandboxURL, APNsEnvironment.sandbox), (.production, productionURL, .production)] {
            if let url = value(variable) ?? value(Name.url) {
                guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw .init("\(variable) must start with https:// or http://, not \(url)") }
                destinations[environment] = APNsEnvironment(name: environment.rawValue, baseURL: url)
            } else {
                destinations[environment] = apple
            }
        }
        return .configured(
            PushSettings(credentials: apns.credentials, bundleID: bundleID, caFile: apns.caFile, destinations: destinations, defaultEnvironment: defaultEnvironment))
    }
}
