import Foundation
import Testing

@testable import SoarCore

@Suite(.timeLimit(.minutes(5))) struct PushRouteTests {
    /// Every route of both tables, with its canonical path.
    static let table: [(PushRoute, String)] = [
        (.home, "/home"), (.todos, "/todos"), (.todo(id: "42"), "/todos/42"), (.profile, "/profile"), (.me, "/me"),
        (.notifications, "/notifications"), (.permissions, "/permissions"), (.settings, "/settings"),
        (.dashboard, "/dashboard"), (.communityLeaderboards, "/community/leaderboards"), (.campaigns, "/campaigns"),
        (.community, "/community"), (.communityChat(slug: nil), "/community/chat"),
        (.communityChat(slug: "creators"), "/community/chat/creators"),
        (.brandHub(publicId: "abc123", tab: .overview), "/brands/abc123/hub"),
        (.brandHub(publicId: "abc123", tab: .deals), "/brands/abc123/hub/deals"),
        (.support(ticketId: nil, compose: false), "/support"), (.support(ticketId: nil, compose: true), "/support/new"),
        (.support(ticketId: "t9", compose: false), "/support/t9"),
        (.support(ticketId: "t9", compose: true), "/support/t9?compose=true"),
        (.creativeApproval(id: "c1"), "/creatives/c1/approval"), (.brandDealDetail(id: "d7"), "/brand-deals/d7"),
    ]

    @Test(arguments: table)
    func pathToRouteToPath(route: PushRoute, path: String) {
        #expect(PushRoute.parse(path) == route)
        #expect(route.path == path)
        #expect(PushRoute.parse(route.path) == route)
        #expect(PushRoute.parse(route.deepLink().absoluteString) == route)
    }

    @Test func seedExample() {
        #expect(PushRoute.parse("/brands/abc123/hub") == .brandHub(publicId: "abc123", tab: .overview))
        #expect(PushRoute.brandHub(publicId: "abc123", tab: .overview).description == "brandHub(publicId: abc123, tab: overview)")
        #expect(PushRoute.brandHub(publicId: "abc123", tab: .overview).parameters == ["publicId": "abc123", "tab": "overview"])
    }

    @Test(arguments: [
        ("soar:///notifications", PushRoute.notifications),
        ("soar://notifications", .notifications),
        ("SOAR:///Notifications/", .notifications),
        ("notifications", .notifications),
        ("/brands/123", .brandHub(publicId: "123", tab: .overview)),
        ("/brands/123/hub/unknown-tab", .brandHub(publicId: "123", tab: .overview)),
        ("/brands/123/hub/Campaigns", .brandHub(publicId: "123", tab: .campaigns)),
        ("https://dialed.evo.co/brands/123", .brandHub(publicId: "123", tab: .overview)),
        ("/support?compose=1", .support(ticketId: nil, compose: true)),
        ("/creative-approvals/c1", .creativeApproval(id: "c1")),
        ("/deals/d7", .brandDealDetail(id: "d7")),
        ("/community/chat/a%20b", .communityChat(slug: "a b")),
        ("  /campaigns  ", .campaigns),
    ])
    func alternateSpellings(text: String, route: PushRoute) {
        #expect(PushRoute.parse(text) == route)
    }

    @Test(arguments: ["", "/", "/nope", "/brands", "/brands/1/hub/2/3", "https://evil.example/brands/1", "ftp://x/campaigns", "::::", "%%%"])
    func unknownGivesNil(text: String) {
        #expect(PushRoute.parse(text) == nil)
    }

    @Test func parametersAreEscapedInPaths() {
        let route = PushRoute.communityChat(slug: "a b/c")
        #expect(route.path == "/community/chat/a%20b%2Fc")
        #expect(PushRoute.parse(route.path) == route)
    }

    @Test func universalLinksOnlyFromTheAppsHost() {
        #expect(PushRoute.fromUniversalLink(URL(string: "https://dialed.evo.co/brands/123")!) == .brandHub(publicId: "123", tab: .overview))
        #expect(PushRoute.fromUniversalLink(URL(string: "https://example.com/brands/123")!) == nil)
        #expect(PushRoute.fromUniversalLink(URL(string: "soar:///notifications")!) == nil)
        #expect(PushRoute.fromUniversalLink(URL(string: "https://app.test/campaigns")!, webHosts: ["app.test"]) == .campaigns)
    }

    @Test func pushDataReadsTargetURLThenDeeplinkThenURL() {
        #expect(PushRoute.fromPushData(["target_url": "/brands/123/hub", "kind": "early_viral_alert"]) == .brandHub(publicId: "123", tab: .overview))
        #expect(PushRoute.fromPushData(["deeplink": "soar:///notifications"]) == .notifications)
        #expect(PushRoute.fromPushData(["url": "https://dialed.evo.co/campaigns"]) == .campaigns)
        #expect(PushRoute.fromPushData(["target_url": "/nope", "deeplink": "soar:///todos"]) == .todos)
        #expect(PushRoute.fromPushData(["target_url": 5, "aps": ["alert": "x"]]) == nil)
        #expect(PushRoute.fromPushData([:]) == nil)
    }
}
