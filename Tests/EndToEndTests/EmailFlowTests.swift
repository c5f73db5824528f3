import Foundation
import SoarTesting
import Testing

/// Magic links, 6-digit codes, recovery and PKCE through supabase-py, the mail read from the
/// development mailbox (no SMTP configured), on SQLite or Postgres.
@Suite(.timeLimit(.minutes(5))) struct EmailFlowTests {
    @Test(.ownThread) func codesLinksRecoveryAndPKCEWorkAsGoTrues() throws {
        let dir = TemporaryDirectory("soar-email")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0"] + database.arguments, environment: database.environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/email_flows.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, url, anon, service], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
        // Each mail is a log line too (the development mailbox), with its link and code.
        #expect(server.standardError.contains(#""msg":"mail""#) && server.standardError.contains("/auth/v1/verify?token="))
    }
}
