import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import SoarCore
import SoarTesting
import Testing

/// `soar backup` under write load and `soar restore`, as an operator runs them.
@Suite(.timeLimit(.minutes(5))) struct BackupCommandTests {
    struct Server {
        let process: BackgroundProcess
        let url: String
        let anon: String
    }

    func serve(_ database: String) throws -> Server {
        let process = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", database])
        let url = try #require(process.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(process.standardError)")
        let anon = try #require(process.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        return Server(process: process, url: url, anon: anon)
    }

    func call(_ server: Server, _ method: String, _ path: String, token: String? = nil, body: String? = nil) async throws -> (Int, JSONValue) {
        var request = URLRequest(url: URL(string: server.url + path)!)
        request.httpMethod = method
        request.setValue(server.anon, forHTTPHeaderField: "apikey")
        request.setValue("Bearer \(token ?? server.anon)", forHTTPHeaderField: "authorization")
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONValue.read(data)) ?? .null)
    }

    @Test func aBackupUnderWritesHoldsEveryAcknowledgedRowAndRestores() async throws {
        let dir = TemporaryDirectory("soar-backup")
        let database = dir.path + "/soar.db", copy = dir.path + "/copy.db"
        let server = try serve(database)
        let (_, session) = try await call(server, "POST", "/auth/v1/signup", body: #"{"email":"a@example.com","password":"correct-horse"}"#)
        let token = try #require(session.objectValue?["access_token"]?.stringValue)

        // Writes go on while the copy is taken; those acknowledged before it began must be in it.
        let acknowledged = Locked([String]())
        let stop = Locked(false)
        let writer = Task {
            var number = 0
            while !stop.withLock({ $0 }) {
                number += 1
                let (status, _) = try await call(server, "POST", "/rest/v1/todos", token: token, body: #"{"title":"t\#(number)"}"#)
                if status == 201 { acknowledged.withLock { $0.append("t\(number)") } }
            }
        }
        while acknowledged.withLock({ $0.count }) < 50 { await Task.yield() }
        let before = Set(acknowledged.withLock { $0 })
        let backup = try ProcessRunner.run(SoarBinary.path, ["backup", copy, "--db", database])
        stop.withLock { $0 = true }
        try await writer.value
        #expect(backup.status == 0 && backup.stdout.hasPrefix("backed up \(database) to \(copy)"), "\(backup.stdout) \(backup.stderr)")
        let again = try ProcessRunner.run(SoarBinary.path, ["backup", copy, "--db", database])
        #expect(again.status == 2 && again.stderr.contains("exists already"), "a copy is never overwritten")

        // Restoring beside a running server is refused; stopped, the copy comes back.
        let refused = try ProcessRunner.run(SoarBinary.path, ["restore", copy, "--db", database])
        #expect(refused.status == 2 && refused.stderr.contains("in use by another soar process"), "\(refused.stderr)")
        #expect(server.process.stop() == 0)
        let restored = try ProcessRunner.run(SoarBinary.path, ["restore", copy, "--db", database])
        #expect(restored.status == 0, "\(restored.stderr)")
        let again2 = try serve(database)
        let (status, rows) = try await call(again2, "GET", "/rest/v1/todos?select=title", token: token)
        #expect(status == 200)
        let titles = Set(rows.arrayValue?.compactMap { $0.objectValue?["title"]?.stringValue } ?? [])
        #expect(before.isSubset(of: titles), "missing: \(before.subtracting(titles).sorted())")
        #expect(titles.isSubset(of: Set(acknowledged.withLock { $0 })), "only rows that were written")
        #expect(again2.process.stop() == 0)

        // What is not a backup is refused, and the database is left as it was.
        try "not a database".write(toFile: dir.path + "/junk.db", atomically: true, encoding: .utf8)
        let junk = try ProcessRunner.run(SoarBinary.path, ["restore", dir.path + "/junk.db", "--db", database])
        #expect(junk.status == 2, "\(junk.stderr)")
        let postgres = try ProcessRunner.run(SoarBinary.path, ["backup", copy + "2", "--database-url", "postgres://x@127.0.0.1:1/x"])
        #expect(postgres.status == 2 && postgres.stderr.contains("pg_dump"))
    }
}
