import Foundation
import SoarCore
import SoarEmulator
import SoarServer
import SoarTesting
import Testing

/// Frequency caps by kind: at most N sends of a kind reach a user in 24 hours; past it the user is
/// left out and counted; other kinds and critical ones are not capped; on an injected clock.
@Suite(.timeLimit(.minutes(3))) struct FrequencyCapTests {
    static let token = String(repeating: "4f", count: 32)

    @Test func aKindReachesAUserAtMostNTimesADay() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(configure: { $0.pushFrequencyCaps = ["promo": 2] }, push: try emulator.pushSettings(), now: time.now)
        let user = try await fixture.signUp("capped@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token)","platform":"ios"}"#).status == 201)
        func send(_ kind: String) async throws -> [String: JSONValue] {
            let answer = try await fixture.sendPush(#"{"user_ids":["\#(user.id)"],"title":"t","body":"b","kind":"\#(kind)"}"#)
            #expect(answer.status == 202, "\(answer.text)")
            return answer.object
        }
        #expect(try await send("promo")["devices"] == 1)
        #expect(try await send("promo")["devices"] == 1)
        let third = try await send("promo")
        #expect(third["devices"] == 0, "the cap of 2 a day")
        let status = try await fixture.call("GET", "/functions/v1/sends/\(try #require(third["send_id"]?.stringValue))", bearer: fixture.serviceKey)
        #expect(status.object["suppressed"]?.objectValue?["frequency_cap"] == 1, "\(status.text)")
        #expect(try await send("news")["devices"] == 1, "another kind is not capped")
        #expect(try await send("security")["devices"] == 1)
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 4 })

        #expect(await fixture.outcomesRecorded(), "before the clock moves on")
        time.advance(by: 86_401)
        #expect(try await send("promo")["devices"] == 1, "a day later, again")
    }
}
