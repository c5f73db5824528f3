import Foundation
import SoarTesting
import Testing

/// A send-push that a SIGKILL interrupts, under injected faults, finishes after a restart: every
/// token ends with exactly one outcome and the emulator received every delivered one.
@Suite(.timeLimit(.minutes(5))) struct PushDurabilityTests {
    @Test(.ownThread) func aSendKilledMidwayFinishesAfterARestartWithOneOutcomePerToken() throws {
        let dir = TemporaryDirectory("soar-durability")
        let emulator = try EmulatorProcess(directory: dir.path + "/emu", [
            "--keep", "100000", "--latency-ms", "40", "--fail-status", "503", "--fail-every", "10", "--goaway-after", "1000", "--max-streams", "500",
        ])
        let control = emulator.control
        let environment = emulator.apnsEnvironment
        func serve() throws -> (BackgroundProcess, String, String) {
            let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db", "--max-body", "4194304"], environment: environment)
            let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
            _ = server.readLine()
            let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
            return (server, url, service)
        }
        func stats() throws -> [String: Any] {
            let answer = try ProcessRunner.run("curl", ["-s", control + "/stats"])
            return (try? JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        let tokens = (0..<20_000).map { String(format: "%08x", $0) + String(repeating: "ab", count: 28) }
        let body = try JSONSerialization.data(withJSONObject: ["tokens": tokens, "title": "durable", "body": "push"])
        try body.write(to: URL(fileURLWithPath: dir.path + "/send.json"))
        let (first, base, service) = try serve()
        let sent = try ProcessRunner.run("curl", [
            "-s", "-X", "POST", base + "/functions/v1/send-push", "-H", "apikey: \(service)", "-H", "authorization: Bearer \(service)",
            "-H", "content-type: application/json", "--data-binary", "@" + dir.path + "/send.json",
        ])
        let answer = try JSONSerialization.jsonObject(with: Data(sent.stdout.utf8)) as? [String: Any]
        _ = try #require(answer?["send_id"] as? String, "\(sent.stdout)")
        #expect(answer?["devices"] as? Int == 20_000)
        // Connections dropped with answers unsent for a while, then killed once a few thousand are through.
        #expect(eventually(within: .seconds(60)) { ((try? stats())?["accepted"] as? Int ?? 0) >= 1000 })
        _ = try ProcessRunner.run("curl", ["-s", "-X", "POST", control + "/faults", "-d", #"{"drop_after":300}"#])
        #expect(eventually(within: .seconds(60)) { ((try? stats())?["accepted_answer_lost"] as? Int ?? 0) > 0 })
        _ = try ProcessRunner.run("curl", ["-s", "-X", "POST", control + "/faults", "-d", #"{"drop_after":null}"#])
        #expect(eventually(within: .seconds(60)) { ((try? stats())?["accepted"] as? Int ?? 0) >= 3000 })
        kill(first.pid, SIGKILL)
        #expect(first.stop() == -9)
        let acceptedBefore = try stats()["accepted"] as? Int ?? 0
        #expect(acceptedBefore < 20_000, "the kill came mid-send (\(acceptedBefore) accepted)")

        let (second, _, _) = try serve()
        let finished = eventually(within: .seconds(120)) { (try? Self.jobStates(dir.path + "/soar.db"))?["pending"] == nil }
        #expect(finished, "no job left pending")
        #expect(second.stop() == 0)

        // One row, one final outcome, per token; what was delivered reached the emulator.
        let outcomes = try Self.jobOutcomes(dir.path + "/soar.db")
        #expect(outcomes.count == 20_000 && Set(outcomes.keys) == Set(tokens))
        let delivered = Set(outcomes.filter { $0.value == "delivered" }.keys)
        let failures = outcomes.filter { $0.value != "delivered" }
        #expect(delivered.count >= 19_900, "\(failures.count) failed: \(Set(failures.values))")
        #expect(failures.values.allSatisfy { ["failed:ServiceUnavailable", "failed:DeliveryUnknown", "failed:ConnectionFailed"].contains($0) }, "\(Set(failures.values))")
        let received = try ProcessRunner.run("curl", ["-s", control + "/deliveries"])
        let list = try JSONSerialization.jsonObject(with: Data(received.stdout.utf8)) as? [[String: Any]] ?? []
        let reached = Set(list.compactMap { $0["token"] as? String })
        #expect(delivered.isSubset(of: reached), "every delivered token reached the emulator")
        #expect(emulator.stop() == 0)
    }

    /// A scheduled send killed while it goes out: after a restart every token has one job (the
    /// schedule ran once) and one outcome.
    @Test(.ownThread) func aScheduledSendKilledMidwayIsSentOnceAfterARestart() throws {
        let dir = TemporaryDirectory("soar-scheduled-durability")
        let emulator = try EmulatorProcess(directory: dir.path + "/emu", ["--keep", "100000", "--latency-ms", "100", "--max-streams", "100"])
        let control = emulator.control
        func serve() throws -> (BackgroundProcess, String, String) {
            let server = try BackgroundProcess(
                SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db", "--max-body", "4194304"], environment: emulator.apnsEnvironment)
            let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
            _ = server.readLine()
            let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
            return (server, url, service)
        }
        func accepted() -> Int {
            let answer = try? ProcessRunner.run("curl", ["-s", control + "/stats"])
            return ((try? JSONSerialization.jsonObject(with: Data((answer?.stdout ?? "").utf8))) as? [String: Any])?["accepted"] as? Int ?? 0
        }
        let tokens = (0..<5_000).map { String(format: "%08x", $0) + String(repeating: "5d", count: 28) }
        let sendAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(2))
        try JSONSerialization.data(withJSONObject: ["tokens": tokens, "title": "scheduled", "body": "once", "send_at": sendAt])
            .write(to: URL(fileURLWithPath: dir.path + "/send.json"))
        let (first, base, service) = try serve()
        let scheduled = try ProcessRunner.run("curl", [
            "-s", "-X", "POST", base + "/functions/v1/send-push", "-H", "apikey: \(service)", "-H", "authorization: Bearer \(service)",
            "-H", "content-type: application/json", "--data-binary", "@" + dir.path + "/send.json",
        ])
        let answer = try JSONSerialization.jsonObject(with: Data(scheduled.stdout.utf8)) as? [String: Any]
        let id = try #require(answer?["schedule_id"] as? String, "\(scheduled.stdout)")
        // Killed once the send is stored and going out (a kill while it is being stored is not
        // covered yet: the rest of it would be lost, see the closing note).
        #expect(eventually(within: .seconds(60)) { accepted() >= 500 }, "the schedule fell due and went out")
        #expect(eventually(within: .seconds(60)) {
            let run = try? ProcessRunner.run("python3", ["-c", """
                import sqlite3, sys
                print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM push_schedules WHERE status = 'sent'").fetchone()[0])
                """, dir.path + "/soar.db"])
            return run?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        })
        kill(first.pid, SIGKILL)
        #expect(first.stop() == -9)
        #expect(accepted() < 5_000, "the kill came mid-send")

        let (second, _, _) = try serve()
        #expect(eventually(within: .seconds(120)) { (try? Self.jobStates(dir.path + "/soar.db"))?["pending"] == nil }, "no job left pending")
        #expect(second.stop() == 0)
        let status = try ProcessRunner.run("python3", ["-c", """
            import sqlite3, sys
            print(sqlite3.connect(sys.argv[1]).execute("SELECT status FROM push_schedules WHERE id = ?", (sys.argv[2],)).fetchone()[0])
            """, dir.path + "/soar.db", id])
        #expect(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "sent", "\(status.stdout)\(status.stderr)")
        let outcomes = try Self.jobOutcomes(dir.path + "/soar.db")
        #expect(outcomes.count == 5_000 && Set(outcomes.keys) == Set(tokens), "one job per token: the schedule ran once")
        #expect(outcomes.values.allSatisfy { $0 == "delivered" || $0 == "failed:DeliveryUnknown" }, "\(Set(outcomes.values))")
        #expect(emulator.stop() == 0)
    }

    /// A send paced by its rate_limit, killed half way: the restart takes up the rest at its
    /// rate, and every token has one job.
    @Test(.ownThread) func aPacedSendKilledHalfWayGoesOnAfterARestart() throws {
        let dir = TemporaryDirectory("soar-paced-durability")
        let emulator = try EmulatorProcess(directory: dir.path + "/emu", ["--keep", "100000"])
        func serve() throws -> (BackgroundProcess, String, String) {
            let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"], environment: emulator.apnsEnvironment)
            let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
            _ = server.readLine()
            let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
            return (server, url, service)
        }
        func accepted() -> Int {
            let answer = try? ProcessRunner.run("curl", ["-s", emulator.control + "/stats"])
            return ((try? JSONSerialization.jsonObject(with: Data((answer?.stdout ?? "").utf8))) as? [String: Any])?["accepted"] as? Int ?? 0
        }
        let tokens = (0..<400).map { String(format: "%08x", $0) + String(repeating: "9e", count: 28) }
        try JSONSerialization.data(withJSONObject: ["tokens": tokens, "title": "paced", "body": "gently", "rate_limit": 100])
            .write(to: URL(fileURLWithPath: dir.path + "/send.json"))
        let (first, base, service) = try serve()
        let sent = try ProcessRunner.run("curl", [
            "-s", "-X", "POST", base + "/functions/v1/send-push", "-H", "apikey: \(service)", "-H", "authorization: Bearer \(service)",
            "-H", "content-type: application/json", "--data-binary", "@" + dir.path + "/send.json",
        ])
        #expect(sent.stdout.contains(#""rate_limit":100"#), "\(sent.stdout)")
        #expect(eventually(within: .seconds(30)) { accepted() >= 100 })
        kill(first.pid, SIGKILL)
        #expect(first.stop() == -9)
        let before = accepted()
        #expect(before < 400, "killed half way: \(before)")

        let (second, _, _) = try serve()
        #expect(eventually(within: .seconds(60)) { accepted() >= 400 && (try? Self.jobStates(dir.path + "/soar.db"))?["pending"] == nil })
        #expect(second.stop() == 0)
        let outcomes = try Self.jobOutcomes(dir.path + "/soar.db")
        #expect(outcomes.count == 400 && Set(outcomes.keys) == Set(tokens), "one job per token: \(outcomes.count)")
        #expect(emulator.stop() == 0)
    }

    /// Jobs by state, read straight from the file.
    static func jobStates(_ database: String) throws -> [String: Int] {
        let run = try ProcessRunner.run("python3", ["-c", """
            import sqlite3, sys, json
            db = sqlite3.connect(sys.argv[1])
            print(json.dumps(dict(db.execute("SELECT coalesce(o.state, 'pending'), count(*) FROM push_jobs j LEFT JOIN push_outcomes o ON o.job_id = j.id GROUP BY 1").fetchall())))
            """, database])
        return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Int]) ?? ["unreadable": 1]
    }

    /// Each job's token and outcome (`delivered`, `failed:REASON`); a token with two rows fails the read.
    static func jobOutcomes(_ database: String) throws -> [String: String] {
        let run = try ProcessRunner.run("python3", ["-c", """
            import sqlite3, sys, json
            db = sqlite3.connect(sys.argv[1])
            rows = db.execute("SELECT j.token, coalesce(o.state, 'pending'), o.reason FROM push_jobs j LEFT JOIN push_outcomes o ON o.job_id = j.id").fetchall()
            out = {}
            for token, state, reason in rows:
                assert token not in out, token
                out[token] = state if state != "failed" else f"failed:{reason}"
            print(json.dumps(out))
            """, database])
        return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String]) ?? [:]
    }
}
