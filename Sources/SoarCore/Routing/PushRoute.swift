/// The seed app's screens, typed: the Soar template's (`soar:///notifications` and its siblings)
/// and the creator app's from the push-routing seed.
///
/// Which path maps to which screen is data, ``RouteTable/seedApp``; this enum is the seed app's
/// Swift view of its ``AppRoute``s. Another app declares its own table and, if it likes, its own
/// enum the same way.
public enum PushRoute: Hashable, Sendable {
    // The Soar template.
    case home
    case todos
    case todo(id: String)
    case profile
    case me
    case notifications
    case permissions
    case settings

    // The creator app.
    case dashboard
    case communityLeaderboards
    case campaigns
    case community
    case communityChat(slug: String?)
    case brandHub(publicId: String, tab: BrandHubTab)
    case support(ticketId: String?, compose: Bool)
    case creativeApproval(id: String)
    case brandDealDetail(id: String)
}

/// The tab a brand hub opens on; an unknown tab opens the overview.
public enum BrandHubTab: String, Hashable, Sendable, CaseIterable {
    case overview, campaigns, content, deals, chat, analytics

    public init(_ rawValue: String?) {
        self = rawValue.flatMap { BrandHubTab(rawValue: $0.lowercased()) } ?? .overview
    }
}

extension PushRoute {
    /// The seed app's screen for a route of ``RouteTable/seedApp``; nil for any other name.
    public init?(_ route: AppRoute) {
        let value = route.parameters
        switch route.name {
        case "home": self = .home
        case "todos": self = .todos
        case "todo": guard let id = value["id"] else { return nil }; self = .todo(id: id)
        case "profile": self = .profile
        case "me": self = .me
        case "notifications": self = .notifications
        case "permissions": self = .permissions
        case "settings": self = .settings
        case "dashboard": self = .dashboard
        case "communityLeaderboards": self = .communityLeaderboards
        case "campaigns": self = .campaigns
        case "community": self = .community
        case "communityChat": self = .communityChat(slug: value["slug"])
        case "brandHub": guard let id = value["publicId"] else { return nil }; self = .brandHub(publicId: id, tab: BrandHubTab(value["tab"]))
        case "support": self = .support(ticketId: value["ticketId"], compose: ["1", "true", "yes"].contains(value["compose"]?.lowercased() ?? ""))
        case "creativeApproval": guard let id = value["id"] else { return nil }; self = .creativeApproval(id: id)
        case "brandDealDetail": guard let id = value["id"] else { return nil }; self = .brandDealDetail(id: id)
        default: return nil
        }
    }

    /// The route as the table names it.
    public var appRoute: AppRoute {
        switch self {
        case .home: AppRoute("home")
        case .todos: AppRoute("todos")
        case .todo(let id): AppRoute("todo", ["id": id])
        case .profile: AppRoute("profile")
        case .me: AppRoute("me")
        case .notifications: AppRoute("notifications")
        case .permissions: AppRoute("permissions")
        case .settings: AppRoute("settings")
        case .dashboard: AppRoute("dashboard")
        case .communityLeaderboards: AppRoute("communityLeaderboards")
        case .campaigns: AppRoute("campaigns")
        case .community: AppRoute("community")
        case .communityChat(let slug): AppRoute("communityChat", slug.map { ["slug": $0] } ?? [:])
        case .brandHub(let id, let tab): AppRoute("brandHub", ["publicId": id, "tab": tab.rawValue])
        case .support(let ticketId, let compose):
            AppRoute("support", (ticketId.map { ["ticketId": $0] } ?? [:]).merging(compose ? ["compose": "true"] : [:]) { a, _ in a })
        case .creativeApproval(let id): AppRoute("creativeApproval", ["id": id])
        case .brandDealDetail(let id): AppRoute("brandDealDetail", ["id": id])
        }
    }
}
