/// The two APNs environments a token can belong to: debug builds register with the sandbox,
/// TestFlight and App Store builds with production. A token sent to the other gets BadDeviceToken.
public enum PushEnvironment: String, Sendable, CaseIterable {
    case sandbox, production

    /// `sandbox` (or `development`, the entitlement's word) or `production`.
    public init?(named name: String) {
        switch name.lowercased() {
        case "sandbox", "development": self = .sandbox
        case "production": self = .production
        default: return nil
        }
    }

    public var other: PushEnvironment { self == .sandbox ? .production : .sandbox }
}
