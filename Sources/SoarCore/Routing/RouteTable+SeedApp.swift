extension RouteTable {
    /// The seed apps' routes: the Soar template's screens and the creator app's table from the
    /// push-routing seed, as `soar init` writes them to `supabase/routes.json`. ``PushRoute`` is
    /// the seed app's typed view of them.
    public static let seedApp: RouteTable = {
        let rows: [(String, String, [String], [String: String])] = [
            ("home", "/home", [], [:]), ("todos", "/todos", [], [:]), ("todo", "/todos/:id", [], [:]),
            ("profile", "/profile", [], [:]), ("me", "/me", [], [:]), ("notifications", "/notifications", [], [:]),
            ("permissions", "/permissions", [], [:]), ("settings", "/settings", [], [:]),
            ("dashboard", "/dashboard", [], [:]), ("communityLeaderboards", "/community/leaderboards", [], [:]),
            ("campaigns", "/campaigns", [], [:]), ("community", "/community", [], [:]),
            ("communityChat", "/community/chat/:slug?", [], [:]),
            ("brandHub", "/brands/:publicId/hub/:tab=overview", [], [:]), ("brandHub", "/brands/:publicId", [], [:]),
            ("support", "/support/new", [], ["compose": "true"]), ("support", "/support/:ticketId?", ["compose"], [:]),
            ("creativeApproval", "/creatives/:id/approval", [], [:]), ("creativeApproval", "/creative-approvals/:id", [], [:]),
            ("brandDealDetail", "/brand-deals/:id", [], [:]), ("brandDealDetail", "/deals/:id", [], [:]),
        ]
        // The rows are well-formed: `RouteTableTests` reads every one.
        let routes = rows.compactMap { try? RoutePattern($0.0, $0.1, query: $0.2, parameters: $0.3) }
        return RouteTable(schemes: ["soar", "dialed"], hosts: ["dialed.evo.co", "www.dialed.evo.co"], routes: routes)
    }()
}
