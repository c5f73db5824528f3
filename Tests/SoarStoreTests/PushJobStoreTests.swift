import Foundation
import SoarCore
import SoarMigrations
import SoarStore
import SoarTesting
import Testing

/// Sends and their jobs: outcomes recorded once, counts kept, partly stored sends closed.
@Suite(.timeLimit(.minutes(5))) struct PushJobStoreTests {
    let directory = TemporaryDirectory("soar-push-store")

    func job(_ n: Int) -> NewPushJob {
        NewPushJob(userID: nil, token: String(format: "%064x", n), environment: nil, bundleID: nil, apnsID: RandomUUID.lowercase())
    }

    @Test func anOutcomeCountsOnceAndTheSendFinishes() throws {
        let store = try SQLiteStore(path: directory.path + "/a.db")
        try store.createSend(id: "s1", request: "{}", total: 2)
        try store.appendToSend(id: "s1", jobs: [job(1), job(2)], notifications: [], inboxSize: 500, badgeUnread: false)
        let jobs = try store.claimJobs(owner: "w", limit: 10, leaseSeconds: 10)
        #expect(try jobs.count == 2 && store.pendingJobCount() == 2)
        let delivered = PushJobResult(jobID: jobs[0].id, delivered: true, reason: nil, environment: "sandbox", removed: false)
        try store.finishJobs([delivered, delivered])
        try store.finishJobs([delivered])
        var summary = try #require(try store.sendSummary(id: "s1"))
        #expect(summary.delivered == 1 && summary.pending == 1 && summary.finishedAt == nil, "recorded twice, counted once")
        #expect(try store.pendingJobCount() == 1)
        try store.finishJobs([PushJobResult(jobID: jobs[1].id, delivered: false, reason: "Unregistered", environment: nil, removed: true)])
        summary = try #require(try store.sendSummary(id: "s1"))
        #expect(summary.failed == 1 && summary.removed == 1 && summary.reasons == ["Unregistered": 1] && summary.finishedAt != nil)
        #expect(try store.claimJobs(owner: "w", limit: 10, leaseSeconds: 10).isEmpty && store.pendingJobCount() == 0)
    }

    @Test func aSendsTotalIsSettledOnWhatWasStored() throws {
        let store = try SQLiteStore(path: directory.path + "/settle.db")
        // Counted 3 devices; one was removed while the send was read, so 2 were stored.
        try store.createSend(id: "fewer", request: "{}", total: 3)
        try store.appendToSend(id: "fewer", jobs: [job(1), job(2)], notifications: [], inboxSize: 500, badgeUnread: false)
        let jobs = try store.claimJobs(owner: "w", limit: 10, leaseSeconds: 10)
        try store.finishJobs(jobs.map { PushJobResult(jobID: $0.id, delivered: true, reason: nil, environment: nil, removed: false) })
        #expect(try store.sendSummary(id: "fewer")?.finishedAt == nil, "still waiting for a third job")
        try store.finishStoring(id: "fewer")
        var summary = try #require(try store.sendSummary(id: "fewer"))
        #expect(summary.total == 2 && summary.pending == 0 && summary.finishedAt != nil)
        // Counted none; one was registered meanwhile: the send is not finished until it is sent.
        try store.createSend(id: "more", request: "{}", total: 0)
        try store.appendToSend(id: "more", jobs: [job(3)], notifications: [], inboxSize: 500, badgeUnread: false)
        try store.finishStoring(id: "more")
        summary = try #require(try store.sendSummary(id: "more"))
        #expect(summary.total == 1 && summary.pending == 1 && summary.finishedAt == nil)
    }

    @Test func aSendThatStoredMoreThanItCountedIsNotFinishedEarlyAndSurvivesARestart() throws {
        let path = directory.path + "/more.db"
        var store = try SQLiteStore(path: path)
        // Counted one device; a second registered while the send was read.
        try store.createSend(id: "more", request: "{}", total: 1)
        try store.appendToSend(id: "more", jobs: [job(1), job(2)], notifications: [], inboxSize: 500, badgeUnread: false)
        let first = try #require(try store.claimJobs(owner: "w", limit: 1, leaseSeconds: 10).first)
        try store.finishJobs([PushJobResult(jobID: first.id, delivered: true, reason: nil, environment: nil, removed: false)])
        #expect(try store.sendSummary(id: "more")?.finishedAt == nil, "one of two stored jobs has ended")
        // Stopped before the total was settled: the next start still finds the pending job.
        store = try SQLiteStore(path: path)
        let again = try store.claimJobs(owner: "w", limit: 10, leaseSeconds: 10)
        #expect(again.map(\.token) == [String(format: "%064x", 2)])
        try store.finishJobs(again.map { PushJobResult(jobID: $0.id, delivered: true, reason: nil, environment: nil, removed: false) })
        #expect(try store.sendSummary(id: "more")?.finishedAt != nil)
        // A send counted as empty and then given a job is not finished either, after a restart too.
        try store.createSend(id: "empty", request: "{}", total: 0)
        try store.appendToSend(id: "empty", jobs: [job(3)], notifications: [], inboxSize: 500, badgeUnread: false)
        store = try SQLiteStore(path: path)
        #expect(try store.sendSummary(id: "empty")?.finishedAt == nil && store.claimJobs(owner: "w", limit: 10, leaseSeconds: 10).count == 1)
    }

    @Test func aFileFromBeforeOutcomeRowsKeepsItsOutcomesAndItsPendingJobs() throws {
        // A file at the schema before push_outcomes, with one job ended and one pending.
        let path = directory.path + "/old.db"
        let made = try ProcessRunner.run("python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TABLE soar_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            for name, sql in zip(sys.argv[2::2], sys.argv[3::2]):
                db.executescript(sql)
                db.execute("INSERT INTO soar_migrations VALUES (?, 't')", (name,))
            db.execute("INSERT INTO push_sends (id, request, total, stored, delivered, created_at) VALUES ('old', '{}', 2, 2, 1, 't')")
            db.execute("INSERT INTO push_jobs (send_id, token, apns_id, updated_at, state) VALUES ('old', 'aa', 'x', 't', 'delivered')")
            db.execute("INSERT INTO push_jobs (send_id, token, apns_id, updated_at, lease_owner) VALUES ('old', 'bb', 'y', 't', 'gone')")
            db.commit()
            """, path] + Migrations.sqlite.prefix { $0.name < "0011" }.flatMap { [$0.name, $0.sql] })
        #expect(made.status == 0, "\(made.stderr)")
        let store = try SQLiteStore(path: path)
        #expect(try store.pendingJobCount() == 1)
        let jobs = try store.claimJobs(owner: "w", limit: 10, leaseSeconds: 10)
        #expect(jobs.map(\.token) == ["bb"], "the delivered job stays ended")
        try store.finishJobs([PushJobResult(jobID: jobs[0].id, delivered: true, reason: nil, environment: nil, removed: false)])
        #expect(try store.sendSummary(id: "old")?.delivered == 2 && store.pendingJobCount() == 0)
    }

    @Test func aSendLeftPartlyStoredIsClosedAtTheNextStart() throws {
        let store = try SQLiteStore(path: directory.path + "/b.db")
        try store.createSend(id: "s2", request: "{}", total: 3)
        try store.appendToSend(id: "s2", jobs: [job(1)], notifications: [], inboxSize: 500, badgeUnread: false)
        // The process stopped here; the next start closes the send at what was stored.
        try store.closePartlyStoredSends()
        let summary = try #require(try store.sendSummary(id: "s2"))
        #expect(summary.total == 1 && summary.pending == 1)
        let empty = "s3"
        try store.createSend(id: empty, request: "{}", total: 0)
        #expect(try store.sendSummary(id: empty)?.finishedAt != nil, "a send to nobody is finished at once")
    }

    @Test func aClaimedJobIsNobodyElsesUntilItsLeaseEndsAndCountsAsRedelivered() throws {
        let path = directory.path + "/c.db"
        var store = try SQLiteStore(path: path)
        try store.createSend(id: "s4", request: "{}", total: 2)
        try store.appendToSend(id: "s4", jobs: [job(1), job(2)], notifications: [], inboxSize: 500, badgeUnread: false)
        #expect(try store.claimJobs(owner: "a", limit: 1, leaseSeconds: 60).map(\.attempts) == [1])
        let second = try store.claimJobs(owner: "b", limit: 10, leaseSeconds: 60)
        #expect(second.count == 1 && second[0].token == String(format: "%064x", 2), "the leased job is skipped, not waited for")
        // The process died; the file's next opening frees the leases its workers held.
        store = try SQLiteStore(path: path)
        let again = try store.claimJobs(owner: "c", limit: 10, leaseSeconds: 60)
        #expect(again.map(\.attempts) == [2, 2])
        try store.finishJobs(again.map { PushJobResult(jobID: $0.id, delivered: true, reason: nil, environment: nil, removed: false) })
        #expect(try store.sendSummary(id: "s4")?.redelivered == 2)
    }

    @Test func aLeaseHeldByItsHeartbeatKeepsItsJobsAndALapsedOneLetsThemGoAgain() throws {
        let time = ManualTime()
        let path = directory.path + "/d.db"
        let store = try SQLiteStore(path: path, now: time.now)
        try store.createSend(id: "s5", request: "{}", total: 3)
        try store.appendToSend(id: "s5", jobs: [job(1), job(2), job(3)], notifications: [], inboxSize: 500, badgeUnread: false)
        let first = try store.claimJobs(owner: "a", limit: 2, leaseSeconds: 10)
        #expect(first.map(\.attempts) == [1, 1])
        time.advance(by: 8)
        try store.renewLeases(owner: "a", leaseSeconds: 10)
        time.advance(by: 8)
        let third = try store.claimJobs(owner: "b", limit: 10, leaseSeconds: 10)
        #expect(third.map(\.token) == [String(format: "%064x", 3)], "a's renewed lease still holds its two jobs")
        time.advance(by: 11)
        // a stopped renewing: its unfinished job goes to c, as a second attempt; b's lapsed too.
        try store.finishJobs([PushJobResult(jobID: first[0].id, delivered: true, reason: nil, environment: nil, removed: false)])
        let again = try store.claimJobs(owner: "c", limit: 10, leaseSeconds: 10)
        #expect(again.map(\.id) == [first[1].id, third[0].id] && again.map(\.attempts) == [2, 2])
        try store.finishJobs(again.map { PushJobResult(jobID: $0.id, delivered: true, reason: nil, environment: nil, removed: false) })
        let summary = try #require(try store.sendSummary(id: "s5"))
        #expect(summary.delivered == 3 && summary.redelivered == 2 && summary.pending == 0)
        // Every job ended, so no claim is left to count at the next start.
        #expect(try store.claimJobs(owner: "c", limit: 10, leaseSeconds: 10).isEmpty)
        let reopened = try SQLiteStore(path: path, now: time.now)
        #expect(try reopened.claimJobs(owner: "d", limit: 10, leaseSeconds: 10).isEmpty)
    }
    /// One batch of outcomes over two sends, with jobs on their first and second attempt and
    /// failures of two reasons: each send counts its own.
    @Test func oneBatchOfOutcomesIsCountedBySend() throws {
        let time = ManualTime()
        let store = try SQLiteStore(path: directory.path + "/sends.db", now: time.now)
        for send in ["x", "y"] {
            try store.createSend(id: send, request: "{}", total: 2)
            try store.appendToSend(id: send, jobs: [job(1), job(2)], notifications: [], inboxSize: 500, badgeUnread: false)
        }
        let early = try store.claimJobs(owner: "a", limit: 1, leaseSeconds: 10)
        time.advance(by: 11)
        let jobs = try store.claimJobs(owner: "b", limit: 10, leaseSeconds: 10)
        #expect(jobs.map(\.sendID) == ["x", "x", "y", "y"] && jobs.map(\.attempts) == [2, 1, 1, 1] && jobs[0].id == early[0].id)
        try store.finishJobs([
            PushJobResult(jobID: jobs[0].id, delivered: true, reason: nil, environment: "sandbox", removed: false),
            PushJobResult(jobID: jobs[1].id, delivered: false, reason: "BadDeviceToken", environment: "sandbox", removed: true),
            PushJobResult(jobID: jobs[2].id, delivered: true, reason: nil, environment: "sandbox", removed: false),
            PushJobResult(jobID: jobs[3].id, delivered: false, reason: "Unregistered", environment: "sandbox", removed: true),
        ])
        let x = try #require(try store.sendSummary(id: "x"))
        let y = try #require(try store.sendSummary(id: "y"))
        #expect(x.delivered == 1 && x.failed == 1 && x.removed == 1 && x.redelivered == 1 && x.reasons == ["BadDeviceToken": 1] && x.finishedAt != nil)
        #expect(y.delivered == 1 && y.failed == 1 && y.removed == 1 && y.redelivered == 0 && y.reasons == ["Unregistered": 1] && y.finishedAt != nil)
    }

    /// Trims inboxes both ways, and only the inboxes it wrote to: a stretch of users read in id
    /// order (one scan of the stretch), and users scattered among others with many rows (a
    /// lookup of each).
    @Test func inboxesAreTrimmedForNeighboursAndForScatteredUsers() throws {
        let store = try SQLiteStore(path: directory.path + "/inbox.db")
        let users = (0...8).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        for user in users { try store.createUser(AuthUser(id: user, createdAt: Timestamp.postgres(Date()))) }
        func rows(_ user: Int, _ n: Int) -> [NewNotification] {
            (0..<n).map { _ in NewNotification(id: RandomUUID.text(RandomUUID.timeOrdered()), userID: users[user], title: nil, body: nil, payload: "{}") }
        }
        func counts(_ indices: Int...) throws -> [Int] {
            try indices.map { index in
                var query = RowQuery()
                query.condition = .compare(column: "user_id", op: .eq, operand: .value(.text(users[index])))
                return try store.select(StarterTables.notifications, query, as: .service, counting: true).total ?? -1
            }
        }
        // Neighbours, three rows each, capped at 2: a short stretch, scanned.
        try store.addNotifications(rows(0, 3) + rows(1, 3) + rows(2, 3), inboxSize: 2)
        #expect(try counts(0, 1, 2) == [2, 2, 2])
        // Users 1 and 4 with 120 rows of others between them: a long stretch, looked up.
        try store.addNotifications(rows(2, 60) + rows(3, 60), inboxSize: 100)
        try store.addNotifications(rows(1, 3) + rows(4, 3), inboxSize: 2)
        #expect(try counts(1, 4, 2, 3) == [2, 2, 62, 60])
        // A short stretch around user 7, who is over this cap but got nothing: left as it is.
        try store.addNotifications(rows(7, 3), inboxSize: 100)
        try store.addNotifications(rows(6, 1) + rows(8, 1), inboxSize: 2)
        #expect(try counts(6, 7, 8) == [1, 3, 1])
    }
}
