import Foundation
import SoarCore
import SoarMigrations
import SoarStore
import SoarTesting
import Testing

/// `soar migrate` and `soar serve` on PostgreSQL, several processes on one database.
@Suite(.timeLimit(.minutes(2))) struct PostgresCommandTests {
    @Test(.ownThread) func threeProcessesMigrateOneDatabaseTogetherEachMigrationOnce() throws {
        let cluster = try PostgresCluster.shared.get()
        let url = try cluster.createDatabase()
        let database = String(url.split(separator: "/").last!)
        let results = Locked<[ProcessResult?]>(Array(repeating: nil, count: 3))
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            let result = try? ProcessRunner.run(SoarBinary.path, ["migrate", "--database-url", url])
            results.withLock { $0[index] = result }
        }
        let runs = results.withLock { $0 }.compactMap { $0 }
        #expect(runs.count == 3 && runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let lines = runs.map { $0.stdout.trimmingCharacters(in: .newlines) }
        #expect(lines.filter { $0.contains(": applied 0001_supabase_base.sql") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains("20250101000000_starter.sql") }.count == 1, "the app's starter, once: \(lines)")
        let count = Migrations.postgres.count
        let totals = "(Soar: \(count) migrations; the app: 7 from the built-in starter"
        #expect(lines.filter { $0.contains(": up to date \(totals)") }.count >= 1, "\(lines)")
        #expect(try cluster.psql(database, "SELECT count(*) FROM public.soar_migrations") == "\(count)\n")
        #expect(try cluster.psql(database, "SELECT version FROM supabase_migrations.schema_migrations ORDER BY version") == "20250101000000\n20250102000000\n20250103000000\n20250104000000\n20250105000000\n20250106000000\n20250107000000\n")
        let again = try ProcessRunner.run(SoarBinary.path, ["migrate", "--database-url", url])
        #expect(again.status == 0 && again.stdout.contains(": up to date \(totals)"), "\(again.stdout)\(again.stderr)")
    }

    @Test(.ownThread) func anUnreachableDatabaseStopsServeWithTheReason() throws {
        let run = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--database-url", "postgres://nobody:hunter2@127.0.0.1:1/none"])
        #expect(run.status == 2 && run.stderr.contains("cannot connect to Postgres"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2"), "the password never shows")
    }

    @Test(.ownThread) func realtimeChangesMadeThroughOneProcessReachSubscribersOnAnother() throws {
        let cluster = try PostgresCluster.shared.get()
        let database = try cluster.createDatabase()
        let dir = TemporaryDirectory("soar-realtime-two")
        let migrations = dir.path + "/migrations"
        #expect(try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations]).status == 0)
        try "alter publication supabase_realtime add table todos;\n".write(
            toFile: migrations + "/20260101000000_realtime.sql", atomically: true, encoding: .utf8)
        let environment = ["JWT_SECRET": "two-processes-share-this-secret-0123456789"]
        let servers = try (0..<2).map { _ in
            try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--database-url", database, "--migrations", migrations], environment: environment)
        }
        let bases = try servers.map { try #require($0.readLine(timeout: 30)?.replacingOccurrences(of: "API URL: ", with: ""), "\($0.standardError)") }
        let anon = try #require(servers[0].readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/realtime_changes.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, bases[0], anon, bases[1], database], timeout: 90)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        for server in servers { #expect(server.stop() == 0) }
    }

    @Test(.ownThread) func twoServersShareTheStorageDirectory() throws {
        let database = try PostgresCluster.shared.get().createDatabase()
        let dir = TemporaryDirectory("soar-two-storage")
        let environment = ["JWT_SECRET": "two-processes-share-this-secret-0123456789"]
        let servers = try (0..<2).map { _ in
            try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--database-url", database, "--storage-dir", dir.path + "/storage"], environment: environment)
        }
        let bases = try servers.map { try #require($0.readLine(timeout: 30)?.replacingOccurrences(of: "API URL: ", with: ""), "\($0.standardError)") }
        _ = servers[0].readLine()
        let service = try #require(servers[0].readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/storage_races.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, bases.joined(separator: ","), service, "upserts"], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        for server in servers { #expect(server.stop() == 0) }
    }

    /// A scheduled send on three processes: one claims it, all deliver it, and one killed with
    /// SIGKILL while it holds jobs loses nothing: every token one job and one final outcome.
    @Test(.ownThread) func threeServersRunAScheduledSendOnceAndOneKilledLosesNothing() throws {
        let cluster = try PostgresCluster.shared.get()
        let database = try cluster.createDatabase()
        let name = String(database.split(separator: "/").last!)
        let dir = TemporaryDirectory("soar-three-schedules")
        let emulator = try EmulatorProcess(directory: dir.path + "/emu", ["--keep", "100000", "--latency-ms", "20", "--max-streams", "200"])
        var environment = emulator.apnsEnvironment
        environment["JWT_SECRET"] = "three-schedulers-share-this-secret-0123456789"
        let servers = try (0..<3).map { _ in
            try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--database-url", database, "--max-body", "4194304"], environment: environment)
        }
        let bases = try servers.map { try #require($0.readLine(timeout: 30)?.replacingOccurrences(of: "API URL: ", with: ""), "\($0.standardError)") }
        _ = servers[0].readLine()
        let service = try #require(servers[0].readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        let tokens = (0..<20_000).map { String(format: "%08x", $0) + String(repeating: "3e", count: 28) }
        try JSONSerialization.data(withJSONObject: [
            "tokens": tokens, "title": "once", "body": "from any", "send_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(2)),
        ]).write(to: URL(fileURLWithPath: dir.path + "/send.json"))
        let scheduled = try ProcessRunner.run("curl", [
            "-s", "-X", "POST", bases[1] + "/functions/v1/send-push", "-H", "apikey: \(service)", "-H", "authorization: Bearer \(service)",
            "-H", "content-type: application/json", "--data-binary", "@" + dir.path + "/send.json",
        ])
        #expect(scheduled.stdout.contains("schedule_id"), "\(scheduled.stdout)")
        func accepted() -> Int {
            let answer = try? ProcessRunner.run("curl", ["-s", emulator.control + "/stats"])
            return ((try? JSONSerialization.jsonObject(with: Data((answer?.stdout ?? "").utf8))) as? [String: Any])?["accepted"] as? Int ?? 0
        }
        // Once it is stored whole and going out, a process holding jobs is killed.
        #expect(eventually(within: .seconds(60)) { (try? cluster.psql(name, "SELECT status FROM public.push_schedules")) == "sent\n" })
        let holder = { (pid: Int32) in "SELECT count(*) FROM public.push_jobs WHERE state = 'pending' AND lease_owner LIKE '\(pid)-%'" }
        var victim: Int?
        #expect(eventually(within: .seconds(60)) {
            victim = servers.indices.first { (Int((try? cluster.psql(name, holder(servers[$0].pid)))?.trimmingCharacters(in: .newlines) ?? "") ?? 0) > 0 }
            return victim != nil
        })
        let killed = try #require(victim)
        kill(servers[killed].pid, SIGKILL)
        #expect(servers[killed].stop() == -9)
        #expect(accepted() < 20_000, "the kill came mid-send")

        let states = { try? cluster.psql(name, "SELECT state || ':' || count(*) FROM public.push_jobs GROUP BY state ORDER BY state") }
        #expect(eventually(within: .seconds(120)) { states()?.contains("pending") == false }, "\(states() ?? "")")
        #expect(try cluster.psql(name, "SELECT count(*) FROM public.push_sends") == "1\n", "one process took the schedule")
        #expect(try cluster.psql(name, "SELECT count(*), count(DISTINCT token), sum(CASE WHEN state = 'delivered' THEN 1 ELSE 0 END) FROM public.push_jobs") == "20000|20000|20000\n")
        let received = try ProcessRunner.run("curl", ["-s", emulator.control + "/deliveries"])
        let list = try JSONSerialization.jsonObject(with: Data(received.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(Set(list.compactMap { $0["token"] as? String }) == Set(tokens), "every token reached the emulator")
        #expect(list.count - 20_000 <= 5_000, "duplicates after the kill are bounded by one claimed batch: \(list.count - 20_000)")
        for (index, server) in servers.enumerated() where index != killed { #expect(server.stop() == 0) }
        #expect(emulator.stop() == 0)
    }

    @Test(.ownThread) func threeServersShareASendAndOneKilledMidwayLosesNothing() throws {
        let cluster = try PostgresCluster.shared.get()
        let database = try cluster.createDatabase()
        let name = String(database.split(separator: "/").last!)
        let dir = TemporaryDirectory("soar-three")
        let emulator = try EmulatorProcess(directory: dir.path + "/emu", ["--keep", "100000", "--latency-ms", "20", "--max-streams", "500"])
        let control = emulator.control
        var environment = emulator.apnsEnvironment
        environment["JWT_SECRET"] = "three-processes-share-this-secret-0123456789"
        let servers = try (0..<3).map { _ in
            try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--database-url", database, "--max-body", "8388608"], environment: environment)
        }
        let bases = try servers.map { try #require($0.readLine(timeout: 30)?.replacingOccurrences(of: "API URL: ", with: ""), "\($0.standardError)") }
        _ = servers[0].readLine()
        let service = try #require(servers[0].readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        func stats() -> Int {
            let answer = try? ProcessRunner.run("curl", ["-s", control + "/stats"])
            return ((try? JSONSerialization.jsonObject(with: Data((answer?.stdout ?? "").utf8))) as? [String: Any])?["accepted"] as? Int ?? 0
        }

        let tokens = (0..<50_000).map { String(format: "%08x", $0) + String(repeating: "cd", count: 28) }
        try JSONSerialization.data(withJSONObject: ["tokens": tokens, "title": "three", "body": "processes"])
            .write(to: URL(fileURLWithPath: dir.path + "/send.json"))
        let sent = try ProcessRunner.run("curl", [
            "-s", "-X", "POST", bases[0] + "/functions/v1/send-push", "-H", "apikey: \(service)", "-H", "authorization: Bearer \(service)",
            "-H", "content-type: application/json", "--data-binary", "@" + dir.path + "/send.json",
        ])
        let answer = try JSONSerialization.jsonObject(with: Data(sent.stdout.utf8)) as? [String: Any]
        let sendID = try #require(answer?["send_id"] as? String, "\(sent.stdout)")
        #expect(answer?["devices"] as? Int == 50_000)
        // The second process is killed once the sending is well under way, while it holds jobs.
        let held = "SELECT count(*) FROM public.push_jobs WHERE state = 'pending' AND lease_owner LIKE '\(servers[1].pid)-%'"
        #expect(eventually(within: .seconds(60)) { stats() >= 5_000 })
        #expect(eventually(within: .seconds(60)) { (Int((try? cluster.psql(name, held))?.trimmingCharacters(in: .newlines) ?? "") ?? 0) > 0 })
        kill(servers[1].pid, SIGKILL)
        #expect(servers[1].stop() == -9)
        #expect(stats() < 50_000, "the kill came mid-send")

        let states = { try? cluster.psql(name, "SELECT state || ':' || count(*) FROM public.push_jobs GROUP BY state ORDER BY state") }
        #expect(eventually(within: .seconds(120)) { states()?.contains("pending") == false }, "\(states() ?? "")")
        let rows = try cluster.psql(name, "SELECT count(*), count(DISTINCT token), sum(CASE WHEN state = 'delivered' THEN 1 ELSE 0 END) FROM public.push_jobs")
        #expect(rows == "50000|50000|50000\n", "one job, one final outcome, per token: \(rows)")
        let workers = try cluster.psql(name, "SELECT count(DISTINCT lease_owner) FROM public.push_jobs")
        #expect((Int(workers.trimmingCharacters(in: .newlines)) ?? 0) >= 2, "the send was shared: \(workers) workers")
        let takenOver = try cluster.psql(name, "SELECT count(*) FROM public.push_jobs WHERE attempts > 1")
        #expect((Int(takenOver.trimmingCharacters(in: .newlines)) ?? 0) > 0, "the killed worker's jobs were taken over")
        let received = try ProcessRunner.run("curl", ["-s", control + "/deliveries"])
        let list = try JSONSerialization.jsonObject(with: Data(received.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(Set(list.compactMap { $0["token"] as? String }) == Set(tokens), "the emulator received every token at least once")
        let summary = try ProcessRunner.run("curl", [
            "-s", bases[2] + "/functions/v1/sends/" + sendID,
            "-H", "apikey: \(service)", "-H", "authorization: Bearer \(service)",
        ])
        #expect(summary.stdout.contains(#""delivered":50000"#), "\(summary.stdout)")
        let duplicates = list.count - 50_000
        #expect(duplicates <= 5_000, "duplicates after the kill are bounded by one claimed batch (5,000 jobs): \(duplicates)")
        #expect(summary.stdout.contains(#""redelivered":"#) && !summary.stdout.contains(#""redelivered":0"#), "counted: \(summary.stdout)")
        for server in [servers[0], servers[2]] { #expect(server.stop() == 0) }
        #expect(emulator.stop() == 0)
    }
}
