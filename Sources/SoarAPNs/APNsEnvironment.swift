/// Where notifications go: Apple's production or sandbox host, or any base URL (the emulator, a proxy).
public struct APNsEnvironment: Hashable, Sendable, CustomStringConvertible {
    /// The base URL, e.g. `https://api.push.apple.com:443`.
    public let baseURL: String
    public let name: String

    public init(name: String, baseURL: String) {
        self.name = name
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// Apple's production host, on 443 or 2197.
    public static func production(port: Int = 443) -> APNsEnvironment {
        .init(name: "production", baseURL: "https://api.push.apple.com:\(port)")
    }

    /// Apple's sandbox (development) host, on 443 or 2197.
    public static func sandbox(port: Int = 443) -> APNsEnvironment {
        .init(name: "sandbox", baseURL: "https://api.sandbox.push.apple.com:\(port)")
    }

    public static let production = production()
    public static let sandbox = sandbox()

    /// A custom base URL; `http://` means cleartext HTTP/2 with prior knowledge (h2c).
    public static func custom(url: String) -> APNsEnvironment { .init(name: "custom", baseURL: url) }

    /// `sandbox` or `production` by name, as `APNS_ENVIRONMENT` and the test-push function say it.
    public init?(named name: String) {
        switch name.lowercased() {
        case "sandbox", "development": self = .sandbox
        case "production": self = .production
        default: return nil
        }
    }

    public var description: String { "\(name) (\(baseURL))" }
}
