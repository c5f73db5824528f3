import Foundation
import SoarTesting
import Testing

/// Realtime over WebSocket against the `soar` binary: PyPI's realtime client (broadcast, presence,
/// the server-side broadcast) and the protocol's edges with PyPI's websockets, on SQLite or Postgres.
@Suite(.timeLimit(.minutes(3))) struct RealtimeTests {
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/\(name)").standardized.path
    }

    @Test(.ownThread) func broadcastPresenceAndTheProtocolsEdges() throws {
        let dir = TemporaryDirectory("soar-realtime")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0"] + database.arguments, environment: database.environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        let clients = try ProcessRunner.run("python3", [Self.script("realtime_e2e.py"), url, anon, service], timeout: 90)
        #expect(clients.status == 0 && clients.stdout.contains("ok"), "\(clients.stdout)\n\(clients.stderr)")
        let edges = try ProcessRunner.run("python3", [Self.script("realtime_protocol.py"), url, anon], timeout: 90)
        #expect(edges.status == 0 && edges.stdout.contains("ok"), "\(edges.stdout)\n\(edges.stderr)")
        #expect(server.stop() == 0, "a clean stop with sockets open: \(server.standardError.suffix(500))")
    }

    @Test(.ownThread) func databaseChangesReachOnlyThoseWhosePoliciesLetThemRead() throws {
        let dir = TemporaryDirectory("soar-realtime-changes")
        let migrations = dir.path + "/migrations"
        let initialized = try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations])
        #expect(initialized.status == 0, "\(initialized.stderr)")
        try "alter publication supabase_realtime add table todos;\n".write(
            toFile: migrations + "/20260101000000_realtime.sql", atomically: true, encoding: .utf8)
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0", "--migrations", migrations] + database.arguments, environment: database.environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let run = try ProcessRunner.run("python3", [Self.script("realtime_changes.py"), url, anon], timeout: 90)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
    }

    @Test(.ownThread) func aChannelClosesWhenItsTokenRunsOut() throws {
        let dir = TemporaryDirectory("soar-realtime-expiry")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0"] + database.arguments, environment: database.environment.merging(["GOTRUE_JWT_EXP": "2"]) { $1 })
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let run = try ProcessRunner.run("python3", [Self.script("realtime_expiry.py"), url, anon], timeout: 60)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
    }
}
