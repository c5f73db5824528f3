import Foundation

/// What the registrar tells the server about the device with its token, for send-push's segments
/// (`app_version=gte.2.0&locale=like.fr*`).
public struct DeviceAttributes: Sendable, Equatable {
    public var appVersion: String?
    public var locale: String?
    public var timeZone: String?

    public init(appVersion: String?, locale: String?, timeZone: String?) {
        self.appVersion = appVersion
        self.locale = locale
        self.timeZone = timeZone
    }

    /// This app's version (`CFBundleShortVersionString`), the user's locale (`fr_FR`) and time
    /// zone (`Europe/Paris`).
    public static var current: DeviceAttributes {
        DeviceAttributes(
            appVersion: Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
            locale: Locale.current.identifier, timeZone: TimeZone.current.identifier)
    }
}
