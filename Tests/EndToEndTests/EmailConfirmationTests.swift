import Foundation
import SoarTesting
import Testing

/// Confirmation at sign-up (`--email-confirm required`), `/resend`, email change and mail
/// templates through supabase-py, on SQLite or Postgres.
@Suite(.timeLimit(.minutes(5))) struct EmailConfirmationTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/email_confirm.py").standardized.path

    func run(_ mode: String, arguments: [String], environment: [String: String]) throws {
        let dir = TemporaryDirectory("soar-confirm")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0"] + arguments + database.arguments, environment: database.environment.merging(environment) { $1 })
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        let run = try ProcessRunner.run("python3", [Self.script, url, anon, service, mode], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
    }

    @Test(.ownThread) func signUpWaitsForTheMailAndEmailChangeAsksBothAddresses() throws {
        let dir = TemporaryDirectory("soar-template")
        let template = dir.path + "/confirmation.html"
        try #"<p>Hello {{ .Data.name }}</p><a href="{{ .ConfirmationURL }}">Confirm</a>"#.write(toFile: template, atomically: true, encoding: .utf8)
        try run("required", arguments: ["--email-confirm", "required"], environment: [
            "GOTRUE_SMTP_MAX_FREQUENCY": "1ms", "GOTRUE_MAILER_SUBJECTS_CONFIRMATION": "Welcome, {{ .Email }}",
            "GOTRUE_MAILER_TEMPLATES_CONFIRMATION": template,
        ])
    }

    @Test(.ownThread) func withoutConfirmationOneMailCompletesAnEmailChange() throws {
        try run("off", arguments: [], environment: [:])
    }

    @Test(.ownThread) func aTemplateWithAnUnknownVariableStopsTheStart() throws {
        let dir = TemporaryDirectory("soar-template")
        let template = dir.path + "/recovery.html"
        try "<p>Hi</p>\n<p>{{ .Secret }}</p>".write(toFile: template, atomically: true, encoding: .utf8)
        let run = try ProcessRunner.run(
            SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"], environment: ["GOTRUE_MAILER_TEMPLATES_RECOVERY": template], timeout: 30)
        #expect(run.status != 0 && run.stderr.contains("recovery.html):2: {{ .Secret }} is not one of"), "\(run.stderr)")
        let frequency = try ProcessRunner.run(
            SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"], environment: ["GOTRUE_SMTP_MAX_FREQUENCY": "soon"], timeout: 30)
        #expect(frequency.status != 0 && frequency.stderr.contains("GOTRUE_SMTP_MAX_FREQUENCY must be a duration"), "\(frequency.stderr)")
    }
}
