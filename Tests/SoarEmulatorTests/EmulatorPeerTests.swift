import Foundation
import SoarTesting
import Testing

@testable import SoarEmulator

/// The emulator against clients the project did not write: h2load, aioapns, and raw
/// misbehaving HTTP/2 clients; after each, it still serves others.
@Suite(.timeLimit(.minutes(5))) struct EmulatorPeerTests {
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers").path

    @Test(.ownThread) func h2loadGetsEveryAnswer() throws {
        let fixture = try EmulatorFixture { $0.initialStreamLimit = 100; $0.deliveryLog = nil }
        let dir = TemporaryDirectory()
        let body = try dir.write("p.json", #"{"aps":{"alert":"load"}}"#)
        let result = try ProcessRunner.run("h2load", [
            "-n", "5000", "-c", "4", "-m", "100", "-d", body, "-H", "authorization: bearer \(try fixture.providerToken())",
            "-H", "apns-topic: \(EmulatorFixture.topic)", fixture.url + "/3/device/\(Curl.token)",
        ], timeout: 120)
        #expect(result.stdout.contains("5000 succeeded, 0 failed"), "\(result.stdout)")
        #expect(result.stdout.contains("status codes: 5000 2xx"))
        #expect(fixture.emulator.state.counters.accepted == 5000)
    }

    @Test(.ownThread) func aioapnsDeliversAndSeesRejections() throws {
        let fixture = try EmulatorFixture { $0.unregistered = ["dead00"] }
        let result = try ProcessRunner.run("python3", [
            Self.peers + "/aioapns_send.py", "--port", String(fixture.emulator.port), "--ca", fixture.caFile,
            "--key-file", fixture.keyFile, "--key-id", fixture.keyID, "--team-id", fixture.teamID,
            "--topic", EmulatorFixture.topic, "--token", Curl.token, "--token", "dead00", "--count", "200",
        ], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let results = summary?["results"] as? [String: Int]
        #expect(results?["ok"] == 100, "\(result.stdout)")
        #expect(results?["410 Unregistered"] == 100, "\(result.stdout)")
    }

    @Test(.ownThread, arguments: [
        ("garbage", #""closed": true"#),
        ("no-h2", "no application protocol"),
        ("bad-preface", #""type": "GOAWAY", "stream": 0, "flags": 0, "error": 1"#),
        ("bad-frame", #""type": "GOAWAY", "stream": 0, "flags": 0, "error": 6"#),
        ("big-headers", #""type": "RST_STREAM", "stream": 1"#),
        ("too-many-streams", #""error": 1"#),
    ])
    func badClientsGetProperErrorsAndOthersAreStillServed(scenario: String, expected: String) throws {
        let fixture = try EmulatorFixture()
        let result = try ProcessRunner.run("python3", [Self.peers + "/h2_abuse.py", scenario, "127.0.0.1", String(fixture.emulator.port), fixture.caFile], timeout: 30)
        #expect(result.stdout.contains(expected), "\(scenario): \(result.stdout) \(result.stderr)")
        #expect(try Curl(fixture: fixture).send().status == 200)
    }
}

/// Faults on demand, set through the control API and observed with curl.
@Suite(.timeLimit(.minutes(5))) struct EmulatorFaultTests {
    @Test(.ownThread) func failsEveryNthRequest() throws {
        let fixture = try EmulatorFixture()
        _ = try fixture.control("POST", "/faults", body: #"{"status":503,"every":2}"#)
        let curl = Curl(fixture: fixture)
        let statuses = try (0..<4).map { _ in try curl.send().status }
        #expect(statuses == [200, 503, 200, 503])
        #expect(try fixture.control("DELETE", "/faults").stdout.contains("\"status\":null"))
        #expect(try curl.send().status == 200)
        _ = try fixture.control("POST", "/faults", body: #"{"status":429}"#)
        #expect(try curl.send().reason == "TooManyRequests")
        _ = try fixture.control("POST", "/faults", body: #"{"status":500}"#)
        #expect(try curl.send().reason == "InternalServerError")
    }

    /// A delay can only make an answer later, never earlier, so the lower bound is safe to check.
    /// Counted from the TLS handshake's end (`time_appconnect`) to the end: the request leaves after it. curl's
    /// `time_pretransfer` can come after an HTTP/2 request was already sent (CI measured 0.2994 s).
    @Test(.ownThread) func addsLatency() throws {
        let fixture = try EmulatorFixture()
        _ = try fixture.control("POST", "/faults", body: #"{"latency_ms":300}"#)
        let result = try ProcessRunner.run("curl", [
            "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total} %{time_appconnect}", "--http2", "--cacert", fixture.caFile,
            "-H", "authorization: bearer \(try fixture.providerToken())", "-H", "apns-topic: \(EmulatorFixture.topic)", "-d", #"{"aps":{}}"#,
            fixture.url + "/3/device/\(Curl.token)",
        ])
        let fields = result.stdout.split(separator: " ")
        #expect(fields.first == "200")
        let waited = (Double(fields[1]) ?? 0) - (Double(fields[2]) ?? 0)
        #expect(waited >= 0.3, "answered \(waited) s after the handshake")
    }

    @Test(.ownThread) func goawayAfterNStreamsMakesClientsReconnectWithNothingLost() throws {
        let fixture = try EmulatorFixture { $0.faults.goawayAfter = 2 }
        let token = try fixture.providerToken()
        var arguments: [String] = []
        for index in 0..<5 {
            if index > 0 { arguments.append("--next") }
            arguments += ["-s", "-o", "/dev/null", "-w", "%{http_code}\n", "--http2", "--cacert", fixture.caFile, "-H", "authorization: bearer \(token)", "-H", "apns-topic: \(EmulatorFixture.topic)", "-d", #"{"aps":{}}"#, fixture.url + "/3/device/\(Curl.token)"]
        }
        let result = try ProcessRunner.run("curl", arguments)
        #expect(result.stdout == "200\n200\n200\n200\n200\n", "\(result.stdout) \(result.stderr)")
        #expect(fixture.emulator.state.counters.connectionsOpened >= 3)
    }

    @Test(.ownThread) func dropsTheConnectionMidStream() throws {
        let fixture = try EmulatorFixture { $0.faults.dropAfter = 1 }
        #expect(throws: CurlFailure.self) { try Curl(fixture: fixture).send() }
        #expect(fixture.emulator.state.counters.accepted == 0)
        _ = try fixture.control("DELETE", "/faults")
        #expect(try Curl(fixture: fixture).send().status == 200)
    }

    @Test(.ownThread) func stopsAndResumesAcceptingConnections() throws {
        let fixture = try EmulatorFixture()
        _ = try fixture.control("POST", "/faults", body: #"{"accept":false}"#)
        let refused = try ProcessRunner.run("curl", ["-s", "--http2", "--cacert", fixture.caFile, fixture.url + "/3/device/ab"])
        #expect(refused.status == 7, "curl exit 7: failed to connect")
        _ = try fixture.control("POST", "/faults", body: #"{"accept":true}"#)
        #expect(try Curl(fixture: fixture).send().status == 200)
    }
}
