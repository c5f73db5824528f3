import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct OfflineTests {
    /// A signed-in client whose todos go through a cache and a write queue in `directory`.
    func offlineReady(_ directory: TemporaryDirectory) async throws -> (ClientFixture, UUID, TodosRepository, WriteQueue) {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let queue = WriteQueue(file: URL(fileURLWithPath: directory.path + "/writes.json"), client: fixture.client)
        let remote = TodosRemoteDataSource(
            client: fixture.client, cache: OfflineCache(directory: URL(fileURLWithPath: directory.path + "/cache")), writes: queue)
        return (fixture, user, TodosRepository(remote: remote), queue)
    }

    @Test func readsFallBackToTheCacheMarkedStale() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, repository, _) = try await offlineReady(directory)
        #expect(await repository.add(text: "tea", userId: user).value != nil)
        let online = try #require(await repository.list(userId: user).value)
        #expect(!online.isStale && online.value.map(\.title) == ["tea"])
        fixture.transport.offline = true
        let offline = try #require(await repository.list(userId: user).value)
        #expect(offline.isStale && offline.value == online.value)
    }

    @Test func writesMadeOfflineLandOnceInOrderOnReconnect() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, repository, queue) = try await offlineReady(directory)
        let tea = try #require(await repository.add(text: "tea", userId: user).value)
        fixture.transport.offline = true
        let milk = try #require(await repository.add(text: "milk", userId: user).value, "offline writes succeed locally")
        #expect(await repository.toggle(tea).value != nil)
        #expect(await repository.delete(milk).value != nil)
        let bread = try #require(await repository.add(text: "bread", userId: user).value)
        #expect(await queue.pending.map(\.summary) == ["POST todos", "PATCH todos", "DELETE todos", "POST todos"])

        // The app is relaunched while still offline: the queue is read back from disk.
        let relaunched = WriteQueue(file: URL(fileURLWithPath: directory.path + "/writes.json"), client: fixture.client)
        #expect(await relaunched.pending.count == 4)
        let network = FakeNetworkMonitor(online: false)
        let replaying = await relaunched.replay(whenOnline: network)
        defer { replaying.cancel() }
        fixture.transport.offline = false
        network.set(online: true)
        #expect(await waitUntil { await relaunched.pending.isEmpty })

        let rows: [Todo] = try await fixture.client.from("todos").select().order("sort_order").execute().value
        #expect(rows.map(\.title) == ["tea", "bread"] && rows[0].completed)
        #expect(rows.map(\.id) == [tea.id, bread.id])
        #expect(fixture.requests(containing: "rest/v1/todos") > 0)
    }

    @Test func aWriteTheServerRefusesOnReplayIsReportedNotDropped() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, repository, queue) = try await offlineReady(directory)
        let tea = try #require(await repository.add(text: "tea", userId: user).value)
        fixture.transport.offline = true
        // The same id again: the server will refuse it with 409 when it is replayed.
        try await queue.submit(fixture.client.from("todos").insert(tea))
        #expect(await repository.add(text: "after", userId: user).value != nil)
        var rejections = await queue.rejections().makeAsyncIterator()
        fixture.transport.offline = false
        #expect(await queue.replay() == 1)
        let rejected = try #require(await rejections.next())
        #expect(rejected.write.summary == "POST todos" && rejected.error.status == 409 && rejected.error.code == .validation)
        #expect(await queue.rejected.count == 1)
        #expect(await queue.pending.isEmpty)
        let rows: [Todo] = try await fixture.client.from("todos").select().order("sort_order").execute().value
        #expect(rows.map(\.title) == ["tea", "after"], "the write behind the refused one still landed")
    }

    @Test func theProbeMonitorFollowsTheServer() async throws {
        let server = try await ServerFixture.start()
        let up = ProbeNetworkMonitor(probe: URL(string: server.url + "/auth/v1/health")!)
        #expect(await up.check() && up.isOnline)
        let down = ProbeNetworkMonitor(probe: URL(string: "http://127.0.0.1:1/auth/v1/health")!)
        var changes = down.updates().makeAsyncIterator()
        #expect(await changes.next() == true)
        #expect(await down.check() == false && !down.isOnline)
        #expect(await changes.next() == false)
    }

    @Test func concurrentWritesKeepTheirOrder() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, _, queue) = try await offlineReady(directory)
        let todo = Todo(userId: user, title: "t")
        // Insert, then ten updates, submitted at once: each update needs the insert before it.
        try await queue.submit(fixture.client.from("todos").insert(todo))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...10 {
                group.addTask { try await queue.submit(fixture.client.from("todos").update(["sort_order": index]).eq("id", value: todo.id)) }
            }
            try await group.waitForAll()
        }
        let row: Todo = try await fixture.client.from("todos").select().eq("id", value: todo.id).single().execute().value
        let pending = await queue.pending, rejected = await queue.rejected
        #expect((1...10).contains(row.sortOrder) && pending.isEmpty && rejected.isEmpty)
    }

    @Test func anUpdateOfARowDeletedElsewhereIsNotFoundNotSilence() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, repository, queue) = try await offlineReady(directory)
        let tea = try #require(await repository.add(text: "tea", userId: user).value)
        fixture.transport.offline = true
        #expect(await repository.toggle(tea).value != nil, "queued")
        fixture.transport.offline = false
        // Another device deletes it before this one reconnects.
        try await fixture.another().from("todos").delete().eq("id", value: tea.id).execute()
        _ = try await fixture.client.from("todos").delete().eq("id", value: tea.id).execute()
        await queue.replay()
        #expect(await queue.rejected.first?.error.code == .notFound)
        #expect(await repository.toggle(tea).error?.code == .notFound, "online, the caller gets it")
    }

    @Test func writesWaitForTheUserWhoMadeThem() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, repository, queue) = try await offlineReady(directory)
        let email = ClientFixture.email()
        try await fixture.another().auth.signUp(email: email, password: "correct-horse")
        _ = await repository.list(userId: user)
        fixture.transport.offline = true
        #expect(await repository.add(text: "mine", userId: user).value != nil)
        fixture.transport.offline = false
        await fixture.client.auth.signOut()
        try await fixture.client.auth.signIn(email: email, password: "correct-horse")
        let sent = await queue.replay()
        let pending = await queue.pending
        #expect(sent == 0 && pending.count == 1, "held, not sent as someone else")
    }

    @Test func offlineAddsTakeTheirPlaceAfterTheQueuedOnes() async throws {
        let directory = TemporaryDirectory("soar-offline")
        let (fixture, user, repository, _) = try await offlineReady(directory)
        _ = await repository.list(userId: user)
        fixture.transport.offline = true
        for title in ["a", "b", "c"] { #expect(await repository.add(text: title, userId: user).value != nil) }
        let stale = try #require(await repository.list(userId: user).value)
        #expect(stale.isStale && stale.value.map(\.sortOrder) == [0, 1, 2] && stale.value.map(\.title) == ["a", "b", "c"])
    }
}
