import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@MainActor @Suite(.timeLimit(.minutes(1))) struct NotificationsControllerTests {
    let tokenBytes = Data([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03])

    func controller(status: AuthorizationStatus = .notDetermined, grants: Bool = true, inbox: FakeInboxSync = FakeInboxSync())
        -> (NotificationsController, FakeNotificationCenter, FakeRemoteRegistration)
    {
        let center = FakeNotificationCenter(status: status, grants: grants)
        let registration = FakeRemoteRegistration(token: tokenBytes)
        let controller = NotificationsController(center: center, registration: registration, routes: .seedApp, inboxSync: inbox)
        registration.deliver { data in await controller.handleDeviceToken(data) }
        return (controller, center, registration)
    }

    static func notification(_ title: String, _ custom: [String: JSONValue] = [:], at date: Date = Date()) -> IncomingNotification {
        IncomingNotification(payload: .alert(title: title, body: "body of \(title)", custom: custom), date: date)
    }

    @Test func grantingPermissionRegistersAndHexEncodesTheToken() async {
        let (controller, center, registration) = controller()
        var events = controller.events().makeAsyncIterator()
        #expect(await controller.requestAuthorization())
        #expect(center.requests == [[.alert, .badge, .sound]])
        #expect(controller.authorizationStatus == .authorized && registration.registrations == 1)
        #expect(controller.pushToken == "deadbeef00010203")
        #expect(await events.next() == .authorizationChanged(.authorized))
        #expect(await events.next() == .tokenChanged("deadbeef00010203"))
    }

    @Test func aRetractionTakesTheNotificationOutOfTheInboxAndNotificationCenter() async {
        let (controller, center, _) = controller(status: .authorized)
        _ = await controller.willPresent(Self.notification("Sale", ["soar_id": "row-1"]))
        _ = await controller.willPresent(Self.notification("Other", ["soar_id": "row-2"]))
        #expect(controller.unreadCount == 2 && center.badge == 2)
        let other = IncomingNotification(payload: Payload(aps: APS(fields: ["content-available": 1]), custom: ["sync": true]))
        #expect(await controller.didReceiveBackground(other) == false && controller.inbox.entries.count == 2, "not Soar's: nothing changes")
        let retraction = IncomingNotification(payload: Payload(aps: APS(fields: ["content-available": 1]), custom: ["soar_retract": "send-1", "soar_id": "row-1"]))
        #expect(await controller.didReceiveBackground(retraction))
        #expect(controller.inbox.entries.map(\.id) == ["row-2"] && center.removed == ["send-1"] && center.badge == 1)
    }

    @Test func aDenialNeverRegisters() async {
        let (controller, _, registration) = controller(grants: false)
        #expect(await controller.requestAuthorization() == false)
        #expect(controller.authorizationStatus == .denied && registration.registrations == 0 && controller.pushToken == nil)
    }

    @Test func foregroundArrivalsAreShownAndKeptNewestFirstCappedAtFifty() async {
        let (controller, center, _) = controller(status: .authorized)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<60 {
            let options = await controller.willPresent(Self.notification("n\(index)", at: start + TimeInterval(index)))
            #expect(options == [.banner, .list, .sound])
        }
        #expect(controller.inbox.entries.count == 50)
        #expect(controller.inbox.entries.first?.title == "n59" && controller.inbox.entries.last?.title == "n10")
        #expect(controller.unreadCount == 50 && center.badge == 50)
    }

    @Test func aTapRoutesOnceMarksReadAndReportsTheOpen() async {
        let inbox = FakeInboxSync()
        let (controller, center, _) = controller(status: .authorized, inbox: inbox)
        let tapped = Self.notification("deal", ["target_url": "/brands/abc123/hub", "soar_id": "row-1"])
        _ = await controller.willPresent(tapped)
        #expect(center.badge == 1)
        var events = controller.events().makeAsyncIterator()
        let route = await controller.didReceive(tapped)
        #expect(route.flatMap(PushRoute.init) == .brandHub(publicId: "abc123", tab: .overview))
        #expect(controller.router.consumePendingRoute() == route)
        #expect(controller.router.consumePendingRoute() == nil, "consumed once")
        #expect(controller.inbox.entries.map(\.id) == ["row-1"] && controller.unreadCount == 0 && center.badge == 0)
        #expect(inbox.opens == ["row-1"])
        #expect(await events.next() == .tap(tapped, route))
    }

    @Test func deeplinkAndURLKeysRouteTooAndUnknownLinksDoNot() async {
        let (controller, _, _) = controller(status: .authorized)
        #expect(await controller.didReceive(Self.notification("a", ["deeplink": "soar:///notifications"])) == AppRoute("notifications"))
        #expect(await controller.didReceive(Self.notification("b", ["url": "soar:///todos"])) == AppRoute("todos"))
        #expect(await controller.didReceive(Self.notification("c", ["deeplink": "soar:///nowhere"])) == nil)
        #expect(controller.router.consumePendingRoute() == nil, "a tap on an unknown link does not open an older route later")
    }

    @Test func theServersInboxIsMergedAndReadsAreReported() async {
        let server = FakeInboxSync([
            InboxEntry(id: "s1", title: "from the server", body: nil, data: ["target_url": "soar:///todos"], receivedAt: Date(timeIntervalSince1970: 1), isRead: false, isOnServer: true)
        ])
        let (controller, center, _) = controller(status: .authorized, inbox: server)
        #expect(await controller.syncInbox().value != nil)
        #expect(controller.inbox.entries.map(\.route) == [AppRoute("todos")] && center.badge == 1)
        await controller.markRead("s1")
        #expect(server.reads == ["s1"] && center.badge == 0)
    }

    @Test func signingOutClearsTheTokenAndInboxAndSigningInRegistersAgain() async throws {
        let fixture = try ClientFixture()
        let (controller, _, registration) = controller(status: .authorized)
        let following = await controller.follow(fixture.client.auth)
        defer { following.cancel() }
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        #expect(await waitUntil { controller.pushToken != nil })
        _ = await controller.willPresent(Self.notification("x"))
        await fixture.client.auth.signOut()
        #expect(await waitUntil { controller.pushToken == nil && controller.inbox.entries.isEmpty })
        let before = registration.registrations
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        #expect(await waitUntil { controller.pushToken != nil } && registration.registrations > before)
    }
}

extension NotificationsControllerTests {
    @Test func aUserSwitchNeverShowsThePreviousUsersInbox() async throws {
        let fixture = try ClientFixture()
        let (controller, center, _) = controller(status: .authorized)
        let following = await controller.follow(fixture.client.auth)
        defer { following.cancel() }
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        #expect(await waitUntil { controller.pushToken != nil })
        _ = await controller.willPresent(Self.notification("for ada"))
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        #expect(await waitUntil { controller.inbox.entries.isEmpty && center.badge == 0 })
    }
}

@MainActor @Suite(.timeLimit(.minutes(1))) struct NotificationsViewModelTests {
    @Test func theTestButtonNeedsAToken() async throws {
        let fixture = try ClientFixture()
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let simulator = FakeRemoteRegistration(token: nil)
        let controller = NotificationsController(center: FakeNotificationCenter(), registration: simulator, routes: .seedApp)
        let model = NotificationsViewModel(controller: controller, sender: PushTestSender(client: fixture.client))
        await controller.requestAuthorization()
        #expect(!model.canSendTestPush, "the Simulator never gets a token")
        await model.sendTestPush()
        #expect(model.testPush == .idle, "nothing is sent without a token")
        await controller.handleDeviceToken(Data([1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(model.canSendTestPush)
        await model.sendTestPush()
        #expect(model.testPush.errorMessage == AppError.Messages.server, "no APNs on this server: 503, shown as a message")
    }
}

@MainActor @Suite(.timeLimit(.minutes(1))) struct PermissionsModelTests {
    @Test func eachPermissionAsksThenOffersSettingsWhenDenied() async {
        let photos = FakePermission(.notDetermined, answers: .denied)
        let camera = FakePermission(.authorized)
        let settings = FakeSettingsOpener()
        let center = FakeNotificationCenter(status: .notDetermined, grants: true)
        let controller = NotificationsController(center: center, registration: FakeRemoteRegistration(token: nil), routes: .seedApp)
        let model = PermissionsModel(
            providers: [.notifications: NotificationPermission(controller: controller), .photos: photos, .camera: camera], settings: settings)
        await model.refresh()
        #expect(model.items.map(\.kind) == [.notifications, .photos, .camera])
        #expect(model.items.map(\.action) == [.ask, .ask, .none])
        await model.perform(.notifications)
        await model.perform(.photos)
        #expect(model.items.map(\.state) == [.authorized, .denied, .authorized])
        #expect(model.items[1].action == .openSettings && controller.authorizationStatus == .authorized)
        await model.perform(.photos)
        #expect(settings.opened == 1 && photos.prompts == 1, "a denied permission opens Settings, never the prompt again")
    }
}
