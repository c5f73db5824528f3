import Foundation

/// The seed app's routes through ``RouteTable/seedApp``.
extension PushRoute {
    /// The route for a path or link, such as a payload's `target_url`.
    ///
    /// `PushRoute.parse("/brands/abc123/hub")` is `.brandHub(publicId: "abc123", tab: .overview)`.
    /// Accepts app-scheme links (`soar:///notifications`) and links on ``webHosts``.
    /// - Returns: nil for an unknown path, a foreign host or malformed text.
    public static func parse(_ text: String, webHosts: Set<String> = webHosts) -> PushRoute? {
        var table = RouteTable.seedApp
        table.hosts = Array(webHosts)
        return table.route(for: text).flatMap(PushRoute.init)
    }

    /// The route for a universal link on one of the app's web hosts; nil for any other host.
    public static func fromUniversalLink(_ url: URL, webHosts: Set<String> = webHosts) -> PushRoute? {
        var table = RouteTable.seedApp
        table.hosts = Array(webHosts)
        return table.route(forUniversalLink: url).flatMap(PushRoute.init)
    }

    /// The keys of a payload that may carry a link, in the order they are read.
    public static var linkKeys: [String] { RouteTable.seedApp.payloadKeys }

    /// URL schemes that carry app paths: `soar:///notifications`, `soar://notifications`.
    public static var appSchemes: Set<String> { Set(RouteTable.seedApp.schemes) }

    /// The web hosts whose universal links the apps open.
    public static var webHosts: Set<String> { Set(RouteTable.seedApp.hosts) }

    /// The route a tap on a notification opens, from its `userInfo`: `target_url`, then
    /// `deeplink`, then `url`; the first that names a known route wins.
    public static func fromPushData(_ userInfo: [AnyHashable: Any]) -> PushRoute? {
        RouteTable.seedApp.route(forUserInfo: userInfo).flatMap(PushRoute.init)
    }

    /// The route a tap on this payload opens, by the same keys as ``fromPushData(_:)``.
    public static func from(_ payload: Payload) -> PushRoute? {
        RouteTable.seedApp.route(for: payload).flatMap(PushRoute.init)
    }

    /// The canonical path, e.g. `/brands/abc123/hub` or `/notifications`.
    public var path: String { RouteTable.seedApp.path(for: appRoute) ?? "/" }

    /// The app-scheme deep link, e.g. `soar:///notifications`.
    public func deepLink(scheme: String = "soar") -> URL {
        URL(string: "\(scheme)://\(path)")!
    }

    /// The route's name in the table, e.g. `brandHub`.
    public var name: String { appRoute.name }

    /// The route's parameters by name, e.g. `["publicId": "abc123", "tab": "overview"]`.
    public var parameters: [String: String] { appRoute.parameters }
}

extension PushRoute: CustomStringConvertible {
    /// `brandHub(publicId: abc123, tab: overview)`.
    public var description: String { RouteTable.seedApp.describe(appRoute) }
}
