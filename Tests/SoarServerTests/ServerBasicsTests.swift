import Foundation
import SoarCore
import SoarHTTP
import SoarServer
import SoarTesting
import Testing

/// Health, metrics, CORS, limits and logs.
@Suite(.timeLimit(.minutes(5))) struct ServerBasicsTests {
    @Test func healthAndMetrics() async throws {
        let fixture = try await ServerFixture.start()
        let health = try await fixture.call("GET", "/health", headers: ["apikey": ""])
        #expect(health.status == 200 && health.object["store"] == "ok")
        _ = try await fixture.call("GET", "/rest/v1/todos")
        _ = try await fixture.call("GET", "/rest/v1/nope")
        let metrics = try await fixture.call("GET", "/metrics", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey]).text
        #expect(metrics.contains(#"soar_http_requests_total{route="/rest/v1/{table}",status="200"} 1"#))
        #expect(metrics.contains(#"soar_http_requests_total{route="/rest/v1/{table}",status="404"} 1"#))
        #expect(metrics.contains("soar_http_request_duration_seconds_bucket"))
        #expect(metrics.contains("soar_store_errors_total 0"))
    }

    @Test func browsersGetCORSAnswers() async throws {
        let fixture = try await ServerFixture.start()
        let preflight = try await fixture.call(
            "OPTIONS", "/rest/v1/todos", headers: ["origin": "http://localhost:3000", "access-control-request-method": "POST"])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("apikey") == true)
        let answer = try await fixture.call("GET", "/rest/v1/todos", headers: ["origin": "http://localhost:3000"])
        #expect(answer.headers["access-control-allow-origin"] == "http://localhost:3000")
    }

    @Test func oversizedBodiesAre413AndUnknownRoutes404() async throws {
        let fixture = try ServerFixture { $0.limits.maxBodySize = 1024 }
        let user = try await fixture.signUp("a@example.com")
        let big = #"{"title":"\#(String(repeating: "x", count: 4096))"}"#
        let answer = try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: big)
        #expect(answer.status == 413)
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).rows.isEmpty, "nothing stored")
        #expect(try await fixture.call("GET", "/nowhere").status == 404)
        #expect(try await fixture.call("PUT", "/rest/v1/todos").status == 405)
        #expect(try await fixture.call("POST", "/functions/v1/nothing", bearer: user.token).status == 404)
    }

    @Test func logsAreJSONLinesWithoutSecrets() async throws {
        let fixture = try await ServerFixture.start()
        let user = try await fixture.signUp("a@example.com", password: "hunter2-secret")
        _ = try await fixture.call("GET", "/rest/v1/todos?title=eq.x", bearer: user.token, headers: ["x-request-id": "req-42"])
        _ = try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, headers: ["x-request-id": "req-43"], body: #"{"sort_order":"hunter2-secret"}"#)
        let lines = fixture.logLines.all
        #expect(lines.count >= 2)
        for line in lines {
            let object = try #require(try? JSONValue.read(Data(line.utf8)).objectValue, "\(line)")
            #expect(object["request_id"] != nil && object["level"] != nil, "\(line)")
            for secret in ["hunter2-secret", user.token, user.refresh, fixture.anonKey, "title=eq.x"] { #expect(!line.contains(secret)) }
        }
        #expect(lines.contains { $0.contains(#""request_id":"req-42""#) })
        // A client's mistake is logged by its code, without the message that echoes its input.
        #expect(lines.contains { $0.contains(#""request_id":"req-43""#) && $0.contains(#""code":"22P02""#) })
    }
}
