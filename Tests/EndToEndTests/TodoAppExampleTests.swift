import Foundation
import SoarCore
import SoarTesting
import Testing

/// Examples/TodoApp, the app a developer starts from, run as its user runs it against
/// `soar serve --with-emulator`: its own routes, its own device-token registry (the row checked
/// with the service key after sign-out), the inbox, and offline writes sent after a restart.
/// `./scripts/test` builds it first (`swift build --package-path Examples/TodoApp`).
@MainActor @Suite(.timeLimit(.minutes(3))) struct TodoAppExampleTests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/TodoApp/.build/debug/todoapp").path

    @Test func theExampleAppFromSignUpToSignOut() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build it first: swift build --package-path Examples/TodoApp")
        let dir = TemporaryDirectory("soar-todoapp")
        let database = try TestDatabase(directory: dir.path)
        let emulator = ["--with-emulator", "--emulator-port", "0", "--emulator-dir", dir.path + "/emulator"]
        var served = try ClientEndToEndTests.serve(dir, ["--port", "0"] + emulator, store: database)
        let environment = ["TODOAPP_URL": served.url.absoluteString, "TODOAPP_ANON_KEY": served.anon, "TODOAPP_HOME": dir.path + "/app"]
        func todoapp(_ words: String...) throws -> String {
            let result = try ProcessRunner.run(Self.binary, words, environment: environment)
            #expect(result.status == 0, "todoapp \(words.joined(separator: " ")): \(result.stderr)")
            return result.stdout
        }
        let email = ClientEndToEndTests.email()
        #expect(try todoapp("sign-up", email, "correct-horse") == "signed up \(email)\n")
        #expect(try todoapp("add", "milk") == "added milk\n")
        let token = String(repeating: "c0ffee", count: 10) + "beef"
        #expect(try todoapp("register-device", token).hasPrefix("registered c0ffeec0"))

        // A push to the user's own device, kept in the inbox and routed by the app's own table.
        let milk = try #require(try todoapp("todos").split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try todoapp("test-push", "todoapp:///todos/\(milk)") == "sent 1, delivered 1, failed 0\n")
        #expect(try todoapp("inbox") == "* Hello -> todo(id: \(milk))\n")
        #expect(try todoapp("open", "https://todo.example.com/inbox") == "inbox\n")

        // Offline: the write waits on disk and is sent once the server is back.
        let port = served.url.port ?? 0
        #expect(served.process.stop() == 0)
        #expect(try todoapp("add", "tea") == "added tea (offline: queued, sent by `todoapp sync`)\n")
        #expect(try todoapp("todos").hasPrefix("(offline: the copy from"))
        #expect(try todoapp("pending") == "POST todos\n")
        // The same API port again; no console (by default it would take that port + 2, which
        // another test's server may hold by then).
        served = try ClientEndToEndTests.serve(dir, ["--port", String(port), "--console-port", "off"] + emulator, store: database)
        #expect(try todoapp("sync") == "sent 1, waiting 0\n")
        #expect(try todoapp("todos").contains("[ ] tea"))

        // Sign-out: the app's own registry deletes the device's row as the ending session.
        let rows = served.url.absoluteString + "/rest/v1/device_tokens?select=token"
        #expect(try await ClientEndToEndTests.get(rows, key: served.service).arrayValue?.count == 1)
        #expect(try todoapp("sign-out") == "signed out\n")
        #expect(try await ClientEndToEndTests.get(rows, key: served.service).arrayValue?.isEmpty == true)
        #expect(served.process.stop() == 0)
    }

    /// The example's generated types are what `soar gen types swift` prints for the starter today.
    @Test(.ownThread) func theExamplesGeneratedTypesAreCurrent() throws {
        let dir = TemporaryDirectory("soar-todoapp-types")
        let generated = try ProcessRunner.run(SoarBinary.path, ["gen", "types", "swift", "--db", dir.path + "/soar.db"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let file = URL(fileURLWithPath: Self.binary).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TodoKit/Database.swift")
        #expect(try String(contentsOf: file, encoding: .utf8) == generated.stdout, "run: soar gen types swift > Examples/TodoApp/Sources/TodoKit/Database.swift")
    }
}
