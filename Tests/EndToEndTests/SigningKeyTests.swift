import Foundation
import SoarCore
import SoarCrypto
import SoarTesting
import Testing

/// ES256 access tokens from a folder of keys, published as a JWKS, rotated without signing anyone out.
@Suite(.timeLimit(.minutes(5))) struct SigningKeyTests {
    static let verifier = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/jwks_verify.py").standardized.path

    struct Server {
        let process: BackgroundProcess
        let url: String
        let anon: String
    }

    func serve(_ dir: TemporaryDirectory) throws -> Server {
        let process = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"], environment: ["SOAR_JWT_KEYS_DIR": dir.path + "/keys"])
        let url = try #require(process.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(process.standardError)")
        let anon = try #require(process.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        return Server(process: process, url: url, anon: anon)
    }

    func curl(_ arguments: [String]) throws -> String { try ProcessRunner.run("curl", ["-s"] + arguments).stdout }

    func signIn(_ server: Server, _ path: String, _ body: String) throws -> String {
        let answer = try curl(["-X", "POST", server.url + path, "-H", "apikey: \(server.anon)", "-d", body])
        return try #require((try? JSONValue.read(Data(answer.utf8)))?.objectValue?["access_token"]?.stringValue, "\(answer)")
    }

    func status(_ server: Server, _ token: String) throws -> String {
        try curl(["-o", "/dev/null", "-w", "%{http_code}", server.url + "/rest/v1/todos", "-H", "apikey: \(server.anon)", "-H", "Authorization: Bearer \(token)"])
    }

    @Test(.ownThread) func tokensAreES256ByKeyIDAndRotateWithoutSigningAnyoneOut() throws {
        let dir = TemporaryDirectory("soar-keys")
        try FileManager.default.createDirectory(atPath: dir.path + "/keys", withIntermediateDirectories: true)
        try P256Key.generate().privatePEM().write(toFile: dir.path + "/keys/2025-01.pem", atomically: true, encoding: .utf8)
        var server = try serve(dir)
        let first = try signIn(server, "/auth/v1/signup", #"{"email":"a@example.com","password":"correct-horse"}"#)
        let verified = try ProcessRunner.run("python3", [Self.verifier, server.url, first])
        #expect(verified.status == 0 && verified.stdout.hasPrefix("2025-01 "), "\(verified.stdout)\(verified.stderr)")
        #expect(try status(server, first) == "200")
        #expect(server.process.stop() == 0)

        // A newer key signs from now on; the older one still verifies.
        try P256Key.generate().privatePEM().write(toFile: dir.path + "/keys/2025-06.pem", atomically: true, encoding: .utf8)
        server = try serve(dir)
        #expect(try status(server, first) == "200", "a token of the older key still works")
        let second = try signIn(server, "/auth/v1/token?grant_type=password", #"{"email":"a@example.com","password":"correct-horse"}"#)
        #expect(try ProcessRunner.run("python3", [Self.verifier, server.url, second]).stdout.hasPrefix("2025-06 "))
        let published = try curl([server.url + "/auth/v1/.well-known/jwks.json"])
        #expect(published.contains(#""kid":"2025-01""#) && published.contains(#""kid":"2025-06""#) && !published.contains(#""d":"#), "\(published)")
        #expect(server.process.stop() == 0)

        // Retired: the older key's tokens are refused.
        try FileManager.default.removeItem(atPath: dir.path + "/keys/2025-01.pem")
        server = try serve(dir)
        #expect(try status(server, first) == "401")
        #expect(try status(server, second) == "200")
        #expect(server.process.stop() == 0)

        // A folder without a private key cannot sign: the start says so.
        let empty = TemporaryDirectory("soar-keys")
        let refused = try ProcessRunner.run("/usr/bin/env", ["SOAR_JWT_KEYS_DIR=\(empty.path)", SoarBinary.path, "serve", "--port", "0", "--db", empty.path + "/soar.db"])
        #expect(refused.status == 2 && refused.stderr.contains("no private key"), "\(refused.stderr)")
    }
}
