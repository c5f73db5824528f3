import Foundation
import SoarClientTesting
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `rate_limit`: a send goes out at most that many devices a second by the server's clock, a
/// tenth of a second's devices at a time, run by the scheduler so that a restart takes it up.
@Suite(.timeLimit(.minutes(2))) struct RateLimitTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "7a", count: 30) }

    @Test func aCappedSendGoesAtItsRate() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        for n in 0..<25 {
            let user = try await fixture.signUp("rate\(n)@example.com")
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#).status == 201)
        }
        let sent = try await fixture.sendPush(#"{"all":true,"title":"Sale","body":"Gently","rate_limit":10}"#)
        #expect(sent.status == 202 && sent.object["rate_limit"] == 10, "\(sent.text)")
        let id = try #require(sent.object["send_id"]?.stringValue)
        // The clock stands still: only the first tenth of a second's device goes.
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 1 })
        #expect(await fixture.outcomesRecorded())
        #expect(emulator.emulator.state.deliveries.count == 1)
        // Each second the clock moves, ten more.
        for expected in [11, 21, 25] {
            time.advance(by: 1)
            #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == expected }, "\(emulator.emulator.state.deliveries.count)")
            #expect(await fixture.outcomesRecorded())
        }
        let status = try await fixture.finishedSend(id)
        #expect(status["delivered"] == 25 && status["total"] == 25, "\(status)")
        #expect(await waitUntil(within: .seconds(10)) {
            (try? await fixture.call("GET", "/functions/v1/schedules/\(id)", bearer: fixture.serviceKey))?.object["status"] == "sent"
        })
        #expect(Set(emulator.emulator.state.deliveries.map(\.token)).count == 25, "each device once")
    }

    @Test func aRateThatIsNoneIsRefused() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        for rate in ["0", "-5", "100001", "1.5", #""fast""#] {
            let answer = try await fixture.sendPush(#"{"all":true,"title":"a","body":"b","rate_limit":\#(rate)}"#)
            #expect(answer.status == 400 && answer.text.contains("rate_limit"), "\(rate): \(answer.text)")
        }
    }
}
