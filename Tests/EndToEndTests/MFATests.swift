import Foundation
import SoarTesting
import Testing

/// TOTP factors through supabase-py, and a policy that asks for `aal2`, on SQLite or Postgres.
@Suite(.timeLimit(.minutes(5))) struct MFATests {
    @Test(.ownThread) func aSecondFactorRaisesTheSessionToAAL2AndPoliciesSeeIt() throws {
        let dir = TemporaryDirectory("soar-mfa")
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures").standardized.path
        let migrations = dir.path + "/migrations"
        _ = try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations])
        try FileManager.default.copyItem(atPath: fixtures + "/20250701000000_vault.sql", toPath: migrations + "/20250701000000_vault.sql")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--migrations", migrations] + database.arguments, environment: database.environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/mfa.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, url, anon], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
    }
}
