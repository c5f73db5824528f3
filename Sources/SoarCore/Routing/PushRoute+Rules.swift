extension PushRoute {
    /// Every path the apps understand, in one table. Adding a route is one line here.
    ///
    /// Parsing takes the first rule whose pattern matches; building a path takes the first rule that
    /// recognises the route, so the canonical spelling of a route comes first.
    static let rules: [RouteRule] = [
        .fixed("home", "/home", .home),
        .fixed("todos", "/todos", .todos),
        .init("todo", "/todos/:id", { $0.id.map { .todo(id: $0) } }, { if case .todo(let id) = $0 { ["id": id] } else { nil } }),
        .fixed("profile", "/profile", .profile),
        .fixed("me", "/me", .me),
        .fixed("notifications", "/notifications", .notifications),
        .fixed("permissions", "/permissions", .permissions),
        .fixed("settings", "/settings", .settings),

        .fixed("dashboard", "/dashboard", .dashboard),
        .fixed("communityLeaderboards", "/community/leaderboards", .communityLeaderboards),
        .fixed("campaigns", "/campaigns", .campaigns),
        .fixed("community", "/community", .community),
        .init("communityChat", "/community/chat/:slug?", { .communityChat(slug: $0.slug) }, { if case .communityChat(let slug) = $0 { ["slug": slug] } else { nil } }),
        .init("brandHub", "/brands/:publicId/hub/:tab=overview", { p in p.publicId.map { .brandHub(publicId: $0, tab: BrandHubTab(p.tab)) } }, { if case .brandHub(let id, let tab) = $0 { ["publicId": id, "tab": tab.rawValue] } else { nil } }),
        .init("brandHub", "/brands/:publicId", { $0.publicId.map { .brandHub(publicId: $0, tab: .overview) } }),
        .init("support", "/support/new", { _ in .support(ticketId: nil, compose: true) }, { $0 == .support(ticketId: nil, compose: true) ? [:] : nil }),
        .init("support", "/support/:ticketId?", query: ["compose"], { .support(ticketId: $0.ticketId, compose: $0.flag("compose")) }, { if case .support(let id, let compose) = $0 { ["ticketId": id, "compose": compose ? "true" : nil] } else { nil } }),
        .init("creativeApproval", "/creatives/:id/approval", { $0.id.map { .creativeApproval(id: $0) } }, { if case .creativeApproval(let id) = $0 { ["id": id] } else { nil } }),
        .init("creativeApproval", "/creative-approvals/:id", { $0.id.map { .creativeApproval(id: $0) } }),
        .init("brandDealDetail", "/brand-deals/:id", { $0.id.map { .brandDealDetail(id: $0) } }, { if case .brandDealDetail(let id) = $0 { ["id": id] } else { nil } }),
        .init("brandDealDetail", "/deals/:id", { $0.id.map { .brandDealDetail(id: $0) } }),
    ]

    /// URL schemes that carry app paths: `soar:///notifications`, `soar://notifications`.
    public static let appSchemes: Set<String> = ["soar", "dialed"]

    /// The web hosts whose universal links the apps open.
    public static let webHosts: Set<String> = ["dialed.evo.co", "www.dialed.evo.co"]
}
