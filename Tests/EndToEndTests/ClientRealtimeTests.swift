import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// SoarClient's realtime against `soar serve`: a user's own inserts arrive on their channel and
/// another user's never do, broadcasts reach the other member, a refused binding says why, and
/// the client comes back after the server restarts.
@MainActor @Suite(.timeLimit(.minutes(2))) struct ClientRealtimeTests {
    struct NewTodo: Encodable, Sendable { let title: String }

    static func first<Element: Sendable>(
        _ stream: AsyncStream<Element>, within seconds: Double = 15, where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask { for await element in stream where matches(element) { return element }; return nil }
            group.addTask { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); return nil }
            let found = await group.next() ?? nil
            group.cancelAll()
            return found
        }
    }

    /// The starter migrations in `dir`, and one more adding `tables` to the realtime publication.
    static func migrations(in dir: TemporaryDirectory, publishing tables: String) throws -> String {
        let migrations = dir.path + "/migrations"
        #expect(try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations]).status == 0)
        try "alter publication supabase_realtime add table \(tables);\n".write(toFile: migrations + "/20260101000000_realtime.sql", atomically: true, encoding: .utf8)
        return migrations
    }

    @Test func ownChangesBroadcastsRefusalsAndAReconnect() async throws {
        let dir = TemporaryDirectory("soar-client-realtime")
        let migrations = try Self.migrations(in: dir, publishing: "todos")
        let database = try TestDatabase(directory: dir.path)
        var served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations], store: database)
        let ada = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let bob = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        try await ada.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")
        try await bob.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")

        let adaChannel = ada.channel("ada")
        let adaChanges = adaChannel.changes(event: "INSERT", table: "todos")
        try await adaChannel.subscribe()
        let bobChannel = bob.channel("bob")
        let bobChanges = bobChannel.changes(event: "INSERT", table: "todos")
        try await bobChannel.subscribe()

        _ = try await ada.from("todos").insert(NewTodo(title: "live")).execute()
        let change = try #require(await Self.first(adaChanges))
        #expect(change.type == "INSERT" && change.table == "todos" && change.record?.objectValue?["title"] == "live")
        let row = try change.decode([String: JSONValue].self)
        #expect(row["completed"] == .bool(false))
        #expect(await Self.first(bobChanges, within: 0.5) == nil, "bob never sees ada's row")

        // Broadcast between two members of one channel.
        let room = ada.channel("room")
        try await room.subscribe()
        let bobRoom = bob.channel("room")
        let heard = bobRoom.broadcasts(event: "wave")
        try await bobRoom.subscribe()
        try await room.broadcast(event: "wave", payload: ["from": "ada"])
        #expect(await Self.first(heard) == ["from": "ada"])

        // A table outside the publication: refused, saying why.
        let profiles = ada.channel("profiles")
        _ = profiles.changes(table: "profiles")
        let refused = await #expect(throws: AppError.self) { try await profiles.subscribe() }
        #expect(refused?.message.contains("supabase_realtime publication") == true, "\(String(describing: refused))")

        // The server restarts on the same port: the client reconnects and joins again.
        let port = served.url.port ?? 0
        #expect(served.process.stop() == 0)
        #expect(await Self.first(adaChannel.statusChange) { $0 == .unsubscribed } != nil, "the drop is seen")
        served = try ClientEndToEndTests.serve(dir, ["--port", String(port), "--console-port", "off", "--migrations", migrations], store: database)
        #expect(await Self.first(adaChannel.statusChange, within: 10) { $0 == .subscribed } != nil, "joined again")
        _ = try await ada.from("todos").insert(NewTodo(title: "after the restart")).execute()
        let again = try #require(await Self.first(adaChanges, within: 10))
        #expect(again.record?.objectValue?["title"] == "after the restart")
        await ada.realtime.disconnect()
        await bob.realtime.disconnect()
        #expect(served.process.stop() == 0)
    }

    /// An insert committed with a delete of the same table (one batch of the change feed) still
    /// arrives: the feed once chose the inserts of a table only when its batch deleted nothing.
    @Test func anInsertCommittedWithADeleteArrivesToo() async throws {
        let dir = TemporaryDirectory("soar-client-batch")
        let migrations = try Self.migrations(in: dir, publishing: "todos")
        let database = try TestDatabase(directory: dir.path)
        let served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations], store: database)
        defer { #expect(served.process.stop() == 0) }
        let ada = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let user = try await ada.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse").user.id.uuidString.lowercased()
        let channel = ada.channel("ada")
        let changes = channel.changes(table: "todos")
        try await channel.subscribe()
        _ = try await ada.from("todos").insert(NewTodo(title: "to go")).execute()
        let added = try #require(await Self.first(changes) { $0.type == "INSERT" })
        let gone = try #require(added.record?.objectValue?["id"]?.stringValue)

        let now = "2026-01-01T00:00:00.000000+00:00"
        try database.execute("""
            INSERT INTO todos (id, user_id, title, completed, sort_order, created_at, updated_at)
              VALUES ('\(RandomUUID.lowercase())', '\(user)', 'beside a delete', false, 0, '\(now)', '\(now)');
            DELETE FROM todos WHERE id = '\(gone)'
            """)
        let inserted = await Self.first(changes) { $0.type == "INSERT" }
        #expect(inserted?.record?.objectValue?["title"] == "beside a delete", "\(String(describing: inserted))")
        let deleted = await Self.first(changes) { $0.type == "DELETE" }
        #expect(deleted?.oldRecord?.objectValue?["id"]?.stringValue == gone, "\(String(describing: deleted))")
        await ada.realtime.disconnect()
    }

    /// One user on two devices: a todo added on one shows on the other's screen, a notification
    /// inserted for the user lands in the other's inbox with its route, and presence is shared.
    @Test func theSameUsersOtherDeviceUpdatesLive() async throws {
        let dir = TemporaryDirectory("soar-client-live")
        let migrations = try Self.migrations(in: dir, publishing: "todos, notifications")
        let served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations])
        defer { #expect(served.process.stop() == 0) }
        let phone = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let tablet = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let email = ClientEndToEndTests.email()
        let ada = try await phone.auth.signUp(email: email, password: "correct-horse").user.id
        try await tablet.auth.signIn(email: email, password: "correct-horse")
        defer { Task { await phone.realtime.disconnect(); await tablet.realtime.disconnect() } }

        // Todos: the tablet's screen follows what the phone does.
        let onTablet = TodosViewModel(repository: TodosRepository(remote: TodosRemoteDataSource(client: tablet)), userId: ada)
        await onTablet.load()
        let following = try #require(await onTablet.followChanges(), "\(onTablet.actionError ?? "")")
        defer { following.cancel() }
        let onPhone = TodosRepository(remote: TodosRemoteDataSource(client: phone))
        let milk = try await onPhone.add(text: "milk", userId: ada).get()
        #expect(await waitUntil(within: .seconds(15)) { onTablet.state.value?.map(\.title) == ["milk"] })
        _ = try await onPhone.toggle(milk).get()
        #expect(await waitUntil(within: .seconds(15)) { onTablet.state.value?.first?.completed == true })
        try await onPhone.delete(milk).get()
        #expect(await waitUntil(within: .seconds(15)) { onTablet.state.value == [] })

        // The inbox: a row the server writes for the user (a push to the phone) shows on the tablet.
        let controller = NotificationsController(
            center: FakeNotificationCenter(status: .authorized), registration: FakeRemoteRegistration(token: nil), routes: .seedApp)
        let inbox = tablet.channel("inbox")
        let merging = controller.followInbox(on: inbox)
        defer { merging.cancel() }
        try await inbox.subscribe()
        let row = #"{"user_id":"\#(ada.uuidString.lowercased())","title":"Deal approved","payload":{"target_url":"/brands/7/hub"}}"#
        var request = URLRequest(url: served.url.appendingPathComponent("rest/v1/notifications"))
        request.httpMethod = "POST"
        request.httpBody = Data(row.utf8)
        for (name, value) in ["apikey": served.service, "Authorization": "Bearer " + served.service, "Content-Type": "application/json"] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        #expect(try await URLSessionTransport().send(request).1.statusCode == 201)
        #expect(await waitUntil(within: .seconds(15)) { controller.inbox.entries.first?.title == "Deal approved" })
        #expect(controller.inbox.entries.first?.route.flatMap(PushRoute.init) == .brandHub(publicId: "7", tab: .overview))
        #expect(controller.unreadCount == 1)

        // Presence: both devices in one room see each other.
        let phoneRoom = phone.channel("room")
        let tabletRoom = tablet.channel("room")
        try await phoneRoom.subscribe()
        try await tabletRoom.subscribe()
        try await phoneRoom.track(["device": "phone"])
        try await tabletRoom.track(["device": "tablet"])
        #expect(await waitUntil(within: .seconds(15)) { Set(phoneRoom.presenceState.values.flatMap { $0 }.compactMap { $0.objectValue?["device"] }) == ["phone", "tablet"] })
        try await tabletRoom.untrack()
        #expect(await waitUntil(within: .seconds(15)) { Set(phoneRoom.presenceState.values.flatMap { $0 }.compactMap { $0.objectValue?["device"] }) == ["phone"] })
    }

    /// Access tokens that last 20 s: the client refreshes 15 s ahead of expiry (room for a loaded
    /// CI machine: with 8 s and 5 s a late refresh once let the token run out) while its socket is in
    /// use and the new token reaches the joined channel (`access_token`), so it stays open past
    /// the first token's expiry and keeps delivering.
    @Test func aRefreshedTokenKeepsTheChannelOpen() async throws {
        let dir = TemporaryDirectory("soar-client-refresh")
        let migrations = dir.path + "/migrations"
        #expect(try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations]).status == 0)
        try "alter publication supabase_realtime add table todos;\n".write(toFile: migrations + "/20260101000000_realtime.sql", atomically: true, encoding: .utf8)
        let served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations], environment: ["GOTRUE_JWT_EXP": "20"])
        defer { #expect(served.process.stop() == 0) }
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore(), refreshMargin: 15)
        let first = try await client.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")
        defer { Task { await client.realtime.disconnect() } }
        let channel = client.channel("mine")
        let changes = channel.changes(event: "INSERT", table: "todos")
        try await channel.subscribe()
        let closed = channel.statusChange
        // The first token's expiry passes (the server closes channels whose token has expired).
        #expect(await waitUntil(within: .seconds(40)) { Date().timeIntervalSince1970 > Double(first.expiresAt) + 1 })
        _ = try await client.from("todos").insert(NewTodo(title: "still here")).execute()
        let change = await Self.first(changes)
        #expect(change?.record?.objectValue?["title"] == "still here", "the channel outlived the first token")
        #expect(await Self.first(closed, within: 0.2) { $0 == .unsubscribed } == nil)
    }

    /// Realtime's limits come from the environment, by Supabase Realtime's names: a third channel
    /// is refused saying why, a message over the size closes the socket (the client comes back),
    /// and a value that is not a number stops the start naming the variable.
    @Test func limitsAreConfigurable() async throws {
        let dir = TemporaryDirectory("soar-client-limits")
        let limits = ["REALTIME_MAX_CHANNELS_PER_CLIENT": "2", "REALTIME_MAX_PAYLOAD_SIZE_IN_KB": "1"]
        let served = try ClientEndToEndTests.serve(dir, ["--port", "0"], environment: limits)
        defer { #expect(served.process.stop() == 0) }
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        defer { Task { await client.realtime.disconnect() } }
        try await client.channel("one").subscribe()
        try await client.channel("two").subscribe()
        let refused = await #expect(throws: AppError.self) { try await client.channel("three").subscribe() }
        #expect(refused?.message.contains("Too many channels: at most 2") == true, "\(String(describing: refused))")
        await #expect(throws: AppError.self) {
            try await client.channel("one").broadcast(event: "big", payload: ["text": .string(String(repeating: "x", count: 2048))])
        }
        let bad = try ProcessRunner.run(
            SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/other.db"], environment: ["REALTIME_MAX_EVENTS_PER_SECOND": "lots"])
        #expect(bad.status == 2 && bad.stderr.contains("REALTIME_MAX_EVENTS_PER_SECOND must be a whole number"), "\(bad.stderr)")
    }

    /// Private channels under the app's policies on `realtime.messages`, as Supabase's Realtime
    /// Authorization: a room's members join and send broadcasts, a stranger is refused saying
    /// why, and what no policy allows (presence here) is refused on send.
    @Test func privateChannelsFollowTheAppsPolicies() async throws {
        let dir = TemporaryDirectory("soar-client-private")
        let migrations = dir.path + "/migrations"
        #expect(try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations]).status == 0)
        try """
            create table room_members (room text not null, user_id uuid not null default auth.uid(), primary key (room, user_id));
            alter table room_members enable row level security;
            create policy "own memberships" on room_members for select to authenticated using (user_id = auth.uid());
            create policy "join rooms" on room_members for insert to authenticated with check (user_id = auth.uid());
            grant select, insert on room_members to authenticated;
            create policy "members receive" on realtime.messages for select to authenticated
              using (exists (select 1 from room_members m where m.room = realtime.topic() and m.user_id = auth.uid()));
            create policy "members broadcast" on realtime.messages for insert to authenticated
              with check (realtime.messages.extension = 'broadcast'
                and exists (select 1 from room_members m where m.room = realtime.topic() and m.user_id = auth.uid()));
            """.write(toFile: migrations + "/20260101000000_rooms.sql", atomically: true, encoding: .utf8)
        let served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations])
        defer { #expect(served.process.stop() == 0) }
        let ada = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let bob = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let stranger = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        defer { Task { await ada.realtime.disconnect(); await bob.realtime.disconnect(); await stranger.realtime.disconnect() } }
        try await ada.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")
        try await bob.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")
        struct Member: Encodable, Sendable { let room: String }
        try await ada.from("room_members").insert(Member(room: "team")).execute()
        try await bob.from("room_members").insert(Member(room: "team")).execute()

        let adaRoom = ada.channel("team", isPrivate: true)
        try await adaRoom.subscribe()
        let bobRoom = bob.channel("team", isPrivate: true)
        let heard = bobRoom.broadcasts(event: "wave")
        try await bobRoom.subscribe()
        try await adaRoom.broadcast(event: "wave", payload: ["from": "ada"])
        #expect(await Self.first(heard) == ["from": "ada"])
        let presence = await #expect(throws: AppError.self) { try await adaRoom.track(["here": true]) }
        #expect(presence?.message.contains("Unauthorized: you do not have permissions to write to this Channel topic: team") == true, "\(String(describing: presence))")

        // Someone who is not a member, signed in or not: refused, saying why.
        let strangerEmail = ClientEndToEndTests.email()
        try await stranger.auth.signUp(email: strangerEmail, password: "correct-horse")
        let refused = await #expect(throws: AppError.self) { try await stranger.channel("team", isPrivate: true).subscribe() }
        #expect(refused?.message == "Unauthorized: you do not have permissions to read from this Channel topic: team", "\(String(describing: refused))")
        let anonymous = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        defer { Task { await anonymous.realtime.disconnect() } }
        await #expect(throws: AppError.self) { try await anonymous.channel("team", isPrivate: true).subscribe() }
        // The same name as a public channel is another channel: open to anyone, and deaf to the private one.
        let publicTeam = stranger.channel("team")
        let overheard = publicTeam.broadcasts(event: "wave")
        try await publicTeam.subscribe()
        try await publicTeam.broadcast(event: "wave", payload: ["from": "stranger"])
        try await adaRoom.broadcast(event: "wave", payload: ["from": "ada, privately"])
        #expect(await Self.first(heard) == ["from": "ada, privately"], "the members hear only their room")
        #expect(await Self.first(overheard, within: 0.5) == nil, "the public channel hears nothing of the private one")

        // A member's client signing in as someone else: the private channel is read again for
        // them, and closes.
        let closing = bobRoom.statusChange
        try await bob.auth.signIn(email: strangerEmail, password: "correct-horse")
        #expect(await Self.first(closing, within: 15) { $0 == .unsubscribed } != nil, "a new user's token closes a room they may not read")
    }
}
