import Foundation
import SoarTesting
import Testing

/// Sign in with Apple through supabase-py, with identity tokens signed as Apple signs them by a
/// key whose set is published in a file (`SOAR_APPLE_JWKS_URL=file://…`).
@Suite(.timeLimit(.minutes(5))) struct AppleSignInTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/apple_sign_in.py").standardized.path

    @Test(.ownThread) func appleIdentityTokensSignInLinkAndAreCheckedAsGoTrueChecksThem() throws {
        let dir = TemporaryDirectory("soar-apple")
        let keys = try ProcessRunner.run("python3", [Self.script, "keys", dir.path])
        #expect(keys.status == 0, "\(keys.stderr)")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0"] + database.arguments,
            environment: database.environment.merging(
                ["GOTRUE_EXTERNAL_APPLE_CLIENT_ID": "com.example.app,com.example.app.watch", "SOAR_APPLE_JWKS_URL": "file://\(dir.path)/jwks.json"]) { $1 })
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let run = try ProcessRunner.run("python3", [Self.script, "run", url, anon, dir.path], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)
    }

    @Test(.ownThread) func withoutTheAppsIDsSignInWithAppleIsOffAndSaysSo() throws {
        let dir = TemporaryDirectory("soar-apple")
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"])
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""))
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let answer = try ProcessRunner.run("curl", ["-s", "-X", "POST", url + "/auth/v1/token?grant_type=id_token", "-H", "apikey: \(anon)", "-d", #"{"provider":"apple","id_token":"x.y.z"}"#])
        #expect(answer.stdout.contains("provider_disabled") && answer.stdout.contains("GOTRUE_EXTERNAL_APPLE_CLIENT_ID"), "\(answer.stdout)")
        #expect(server.stop() == 0)
    }
}
