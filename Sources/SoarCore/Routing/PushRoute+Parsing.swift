import Foundation

extension PushRoute {
    /// The route for a path or link, such as a payload's `target_url`.
    ///
    /// `PushRoute.parse("/brands/abc123/hub")` is `.brandHub(publicId: "abc123", tab: .overview)`.
    /// Accepts app-scheme links (`soar:///notifications`) and links on ``webHosts``.
    /// - Returns: nil for an unknown path, a foreign host or malformed text.
    public static func parse(_ text: String, webHosts: Set<String> = webHosts) -> PushRoute? {
        guard let (path, query) = RoutePath.split(text, webHosts: webHosts) else { return nil }
        for rule in rules {
            if let route = rule.match(path, query: query) { return route }
        }
        return nil
    }

    /// The route for a universal link on one of the app's web hosts; nil for any other host.
    public static func fromUniversalLink(_ url: URL, webHosts: Set<String> = webHosts) -> PushRoute? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return nil }
        return parse(url.absoluteString, webHosts: webHosts)
    }

    /// The keys of a payload that may carry a link, in the order they are read.
    public static let linkKeys = ["target_url", "deeplink", "url"]

    /// The route a tap on a notification opens, from its `userInfo`.
    ///
    /// Reads `target_url`, then `deeplink`, then `url`; the first that names a known route wins.
    public static func fromPushData(_ userInfo: [AnyHashable: Any]) -> PushRoute? {
        for key in linkKeys {
            if let text = userInfo[key] as? String, let route = parse(text) { return route }
        }
        return nil
    }

    /// The route a tap on this payload opens, by the same keys as ``fromPushData(_:)``.
    public static func from(_ payload: Payload) -> PushRoute? {
        for key in linkKeys {
            if let text = payload.custom[key]?.stringValue, let route = parse(text) { return route }
        }
        return nil
    }

    /// The canonical path, e.g. `/brands/abc123/hub` or `/notifications`.
    public var path: String { Self.canonicalRule(for: self).path(for: self) ?? "/" }

    /// The app-scheme deep link, e.g. `soar:///notifications`.
    public func deepLink(scheme: String = "soar") -> URL {
        URL(string: "\(scheme)://\(path)")!
    }
}

extension PushRoute: CustomStringConvertible {
    /// `brandHub(publicId: abc123, tab: overview)`.
    public var description: String { Self.canonicalRule(for: self).describe(self) ?? name }
}

extension PushRoute {
    /// The route's name in the table, e.g. `brandHub`.
    public var name: String { Self.canonicalRule(for: self).name }

    /// The route's parameters by name, e.g. `["publicId": "abc123", "tab": "overview"]`.
    public var parameters: [String: String] {
        (Self.canonicalRule(for: self).parameters?(self) ?? [:]).compactMapValues { $0 }
    }

    private static func canonicalRule(for route: PushRoute) -> RouteRule {
        guard let rule = rules.first(where: { $0.parameters?(route) != nil }) else {
            preconditionFailure("PushRoute.rules has no canonical rule for a route")
        }
        return rule
    }
}
