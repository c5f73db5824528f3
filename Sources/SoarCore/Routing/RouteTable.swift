import Foundation

/// An app's routes: which links, paths and payload keys open which screens.
///
/// Links come as paths (`/todos/42`), app-scheme links (`myapp:///todos/42`, `myapp://todos/42`)
/// or universal links on the app's hosts (`https://example.com/todos/42`). Parsing takes the first
/// row whose pattern matches; building a path takes the first row that can spell the route, so a
/// route's canonical spelling comes first and alternate spellings after it.
public struct RouteTable: Sendable, Equatable {
    /// URL schemes that carry app paths, lowercased; the first is the one links are built with.
    public var schemes: [String]
    /// Hosts whose `https` links the app opens, lowercased.
    public var hosts: [String]
    /// The payload keys a tap reads, in order; the first that names a known route wins.
    public var payloadKeys: [String]
    public var routes: [RoutePattern]

    public init(schemes: [String], hosts: [String] = [], payloadKeys: [String] = ["target_url", "deeplink", "url"], routes: [RoutePattern]) {
        self.schemes = schemes.map { $0.lowercased() }
        self.hosts = hosts.map { $0.lowercased() }
        self.payloadKeys = payloadKeys
        self.routes = routes
    }

    /// The route for a path or link; nil for an unknown path, a foreign host or malformed text.
    public func route(for link: String) -> AppRoute? {
        guard let (path, query) = RoutePath.split(link, schemes: Set(schemes), hosts: Set(hosts)) else { return nil }
        return routes.lazy.compactMap { $0.match(path, query: query) }.first
    }

    /// The route for a universal link on one of the app's hosts; nil for any other URL.
    public func route(forUniversalLink url: URL) -> AppRoute? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return nil }
        return route(for: url.absoluteString)
    }

    /// The route a tap on this payload opens: the first payload key naming a known route.
    public func route(for payload: Payload) -> AppRoute? {
        payloadKeys.lazy.compactMap { payload.custom[$0]?.stringValue }.compactMap(route(for:)).first
    }

    /// The route a tap opens, from a notification's `userInfo`.
    public func route(forUserInfo userInfo: [AnyHashable: Any]) -> AppRoute? {
        payloadKeys.lazy.compactMap { userInfo[$0] as? String }.compactMap(route(for:)).first
    }

    /// The link text a tap follows (the first payload key present), known route or not.
    public func link(in payload: Payload) -> String? {
        payloadKeys.lazy.compactMap { payload.custom[$0]?.stringValue }.first
    }

    /// The canonical path, e.g. `/todos/42`; nil when no row can spell the route.
    public func path(for route: AppRoute) -> String? {
        routes.lazy.compactMap { $0.build(route) }.first
    }

    /// The app-scheme link, e.g. `myapp:///todos/42`, with the table's first scheme.
    public func deepLink(for route: AppRoute) -> URL? {
        guard let path = path(for: route), let scheme = schemes.first else { return nil }
        return URL(string: "\(scheme)://\(path)")
    }

    /// `todo(id: 42)`, parameters in the canonical row's order.
    public func describe(_ route: AppRoute) -> String {
        guard let row = routes.first(where: { $0.build(route) != nil }) else { return route.description }
        let order = row.parameterOrder + route.parameters.keys.sorted().filter { !row.parameterOrder.contains($0) }
        let shown = order.compactMap { key in route.parameters[key].map { "\(key): \($0)" } }
        return shown.isEmpty ? route.name : "\(route.name)(\(shown.joined(separator: ", ")))"
    }
}

/// Why a route table cannot be used, naming the row.
public struct RouteTableError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
