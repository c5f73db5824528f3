import Foundation
import Synchronization
import Testing

@testable import SoarCommands

/// Runs `soar` in-process and keeps what it printed.
final class RecordingConsole: Sendable {
    private let buffers = Mutex((out: "", err: ""))
    var out: String { buffers.withLock { $0.out } }
    var err: String { buffers.withLock { $0.err } }

    var console: Console {
        Console(out: { text in self.buffers.withLock { $0.out += text } }, err: { text in self.buffers.withLock { $0.err += text } })
    }

    func run(_ words: String...) async -> Int32 { await SoarCLI.run(words, console: console) }
}

func temporaryFile(_ name: String, _ contents: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soar-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    try contents.write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

@Suite(.timeLimit(.minutes(5))) struct RouteCommandTests {
    @Test func printsTheBrandHubRoute() async {
        let cli = RecordingConsole()
        #expect(await cli.run("route", "/brands/abc123/hub") == 0)
        #expect(cli.out == "brandHub(publicId: abc123, tab: overview)\npath: /brands/abc123/hub\n")
    }

    @Test func json() async {
        let cli = RecordingConsole()
        #expect(await cli.run("route", "--json", "soar:///notifications") == 0)
        #expect(cli.out == #"{"parameters":{},"path":"/notifications","route":"notifications"}"# + "\n")
    }

    @Test func unknownPathExitsOne() async {
        let cli = RecordingConsole()
        #expect(await cli.run("route", "/nowhere") == 1)
        #expect(cli.err.contains("no route matches /nowhere"))
    }

    @Test func routesAPayloadFile() async throws {
        let path = try temporaryFile("p.apns", #"{"aps":{"alert":"x"},"target_url":"/campaigns"}"#)
        let cli = RecordingConsole()
        #expect(await cli.run("route", path) == 0)
        #expect(cli.out.hasPrefix("campaigns\n"))
    }

    @Test func anAppsOwnTableFromInitOrAFile() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soar-routes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cli = RecordingConsole()
        #expect(await cli.run("init", "--migrations", dir + "/supabase/migrations") == 0)
        #expect(cli.out.contains("wrote \(dir)/supabase/routes.json"))
        let written = try String(contentsOfFile: dir + "/supabase/routes.json", encoding: .utf8)
        #expect(await cli.run("route", "--routes", dir + "/supabase/routes.json", "dialed:///deals/7") == 0)
        #expect(cli.out.hasSuffix("brandDealDetail(id: 7)\npath: /brand-deals/7\n"))
        // The app makes the table its own.
        let mine = written.replacingOccurrences(of: #""schemes": ["soar","dialed"]"#, with: #""schemes": ["myapp"]"#)
        try mine.write(toFile: dir + "/routes.json", atomically: true, encoding: .utf8)
        #expect(await cli.run("route", "--routes", dir + "/routes.json", "myapp:///todos/42") == 0)
        #expect(cli.out.hasSuffix("todo(id: 42)\npath: /todos/42\n"))
        #expect(await cli.run("route", "--routes", dir + "/routes.json", "soar:///todos/42") == 1)
        try #"{"schemes": ["myapp"], "routes": [{"name": "x", "path": "/:a?/b"}]}"#.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        #expect(await cli.run("route", "--routes", dir + "/bad.json", "/b") == 2)
        #expect(cli.err.contains("bad.json: routes[0]: x: in /:a?/b, only the last segment may be optional"))
    }

    @Test func usageErrorsExitTwo() async {
        let cli = RecordingConsole()
        #expect(await cli.run("route") == 2)
        #expect(cli.err.contains("missing URL or path"))
        #expect(await cli.run("route", "--colour", "/x") == 2)
        #expect(cli.err.contains("unknown option --colour"))
        #expect(await cli.run("fly") == 2)
    }
}

@Suite(.timeLimit(.minutes(5))) struct PayloadValidateCommandTests {
    @Test func acceptsASimulatorFileAndShowsTheRoute() async throws {
        let path = try temporaryFile("push.apns", """
            {"Simulator Target Bundle":"com.soarstarter.SoarStarterSwift","aps":{"alert":{"title":"Test","body":"Test notification"}},"target_url":"/brands/123/hub","kind":"early_viral_alert"}
            """)
        let cli = RecordingConsole()
        #expect(await cli.run("payload", "validate", path) == 0)
        #expect(cli.out.contains("valid: 119 of 4096 bytes (alert)"))
        #expect(cli.out.contains("simulator target: com.soarstarter.SoarStarterSwift"))
        #expect(cli.out.contains("route: brandHub(publicId: 123, tab: overview) -> /brands/123/hub"))
    }

    @Test func rejectsA5000BytePayload() async throws {
        let body = String(repeating: "x", count: 5000 - 37)
        let path = try temporaryFile("big.json", #"{"aps":{"alert":{"title":"T","body":"\#(body)"}}}"#)
        let cli = RecordingConsole()
        #expect(await cli.run("payload", "validate", path) == 1)
        #expect(cli.err.contains("over the 4096-byte limit for alert notifications"))
        #expect(cli.out.isEmpty)
        #expect(await cli.run("payload", "validate", "--push-type", "voip", path) == 0)
    }

    @Test func reportsWhyAPayloadIsInvalid() async throws {
        let path = try temporaryFile("bad.json", #"{"aps":{"badge":"three"}}"#)
        let cli = RecordingConsole()
        #expect(await cli.run("payload", "validate", path) == 1)
        #expect(cli.err.contains(#""aps.badge" must be an integer, not string"#))
    }

    @Test func aPipeIsReadLikeAFile() async throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(#"{"aps":{"alert":"hi"}}"#.utf8))
        try pipe.fileHandleForWriting.close()
        let cli = RecordingConsole()
        #expect(await cli.run("payload", "validate", "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)") == 0)
        #expect(cli.out.contains("valid: 22 of 4096 bytes (alert)"))
        #expect(await cli.run("payload", "validate", NSTemporaryDirectory()) == 2)
        #expect(cli.err.contains("it is a directory"))
    }

    @Test func missingFileAndBadTypeAreUsageErrors() async {
        let cli = RecordingConsole()
        #expect(await cli.run("payload", "validate", "/no/such/file.json") == 2)
        #expect(cli.err.contains("cannot read /no/such/file.json"))
        #expect(await cli.run("payload", "validate", "--push-type", "fax", "x.json") == 2)
        #expect(cli.err.contains("unknown push type fax"))
    }
}

@Suite(.timeLimit(.minutes(5))) struct HelpTests {
    @Test func everyCommandHasHelp() async {
        for command in SoarCLI.commands {
            let cli = RecordingConsole()
            let words = command.name.split(separator: " ").map(String.init) + ["--help"]
            #expect(await SoarCLI.run(words, console: cli.console) == 0)
            #expect(cli.out.hasPrefix("Usage: soar \(command.name)"))
        }
        let cli = RecordingConsole()
        #expect(await cli.run("--help") == 0)
        #expect(cli.out.contains("payload validate"))
    }

    @Test func selfCheckPasses() async {
        let cli = RecordingConsole()
        #expect(await cli.run("self-check") == 0)
        #expect(!cli.out.contains("FAIL"))
    }
}

@Suite(.timeLimit(.minutes(5))) struct SimulateCommandTests {
    @Test func aSimulatorFileIsPresentedKeptAndRoutedOnTap() async throws {
        let path = try temporaryFile("push.apns", """
            {"Simulator Target Bundle":"com.soarstarter.SoarStarterSwift","aps":{"alert":{"title":"Test","body":"Test notification"}},"target_url":"/brands/123/hub","kind":"early_viral_alert"}
            """)
        let cli = RecordingConsole()
        #expect(await cli.run("simulate", path) == 0)
        #expect(cli.out == """
            target bundle: com.soarstarter.SoarStarterSwift
            presentation: [.banner, .list, .sound]
            inbox: 1 unread, newest "Test" ("Test notification")
            tap opens: brandHub(publicId: 123, tab: overview) (soar:///brands/123/hub)

            """)
    }

    @Test func jsonAndTheTemplatesNotificationsLink() async throws {
        let path = try temporaryFile("push.apns", #"{"aps":{"alert":"hi","sound":"default"},"deeplink":"soar:///notifications"}"#)
        let cli = RecordingConsole()
        #expect(await cli.run("simulate", "--json", path) == 0)
        #expect(cli.out == #"{"deeplink":"soar:///notifications","inbox":{"body":"hi","title":null,"unread":1},"presentation":["banner","list","sound"],"route":"notifications"}"# + "\n")
    }

    @Test func aBackgroundNotificationShowsNothing() async throws {
        let path = try temporaryFile("silent.apns", #"{"aps":{"content-available":1},"deeplink":"soar:///todos"}"#)
        let cli = RecordingConsole()
        #expect(await cli.run("simulate", path) == 0)
        #expect(cli.out.contains("presentation: none") && cli.out.contains("inbox: nothing kept") && cli.out.contains("nothing to tap"))
    }

    @Test func badFilesExitOneOrTwoWithTheReason() async throws {
        let cli = RecordingConsole()
        #expect(await cli.run("simulate", try temporaryFile("bad.apns", #"{"alert":"no aps"}"#)) == 1)
        #expect(cli.err.contains("no \"aps\" dictionary"))
        #expect(await cli.run("simulate", "/nonexistent.apns") == 2)
        #expect(await cli.run("simulate") == 2)
        let big = #"{"aps":{"alert":"\#(String(repeating: "x", count: 5000))"}}"#
        #expect(await cli.run("simulate", try temporaryFile("big.apns", big)) == 1, "APNs would refuse it")
        #expect(cli.err.contains("over the 4096-byte limit"))
    }
}
