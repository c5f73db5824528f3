/// A screen a notification tap or a link opens.
///
/// Holds the Soar template's screens (`soar:///notifications` and its siblings) and the creator
/// app's table from the push-routing seed. Which path maps to which route is data in one place,
/// ``PushRoute/rules``: parsing, path building and descriptions all read it.
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
