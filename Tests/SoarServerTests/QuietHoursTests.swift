import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// Quiet hours: a push to a user inside their local window waits for its end, is dropped when it
/// would expire first, and a critical kind goes at once; on an injected clock.
@Suite(.timeLimit(.minutes(3))) struct QuietHoursTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "9c", count: 30) }

    @Test func aPushWaitsForTheWindowsEnd() async throws {
        // 23:30 in Paris: Ada's quiet hours (22:00 to 07:00 there) hold; Bob has none.
        let time = ManualTime(try #require(Timestamp.parse("2026-12-05T22:30:00Z")))
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        let ada = try await fixture.signUp("ada@example.com"), bob = try await fixture.signUp("bob@example.com")
        for (n, user) in [ada, bob].enumerated() {
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#).status == 201)
        }
        let quiet = try await fixture.call(
            "POST", "/rest/v1/quiet_hours", bearer: ada.token, body: #"{"starts_at":"22:00","ends_at":"07:00","time_zone":"Europe/Paris"}"#)
        #expect(quiet.status == 201, "\(quiet.text)")
        func send(_ extra: String) async throws -> ServerFixture.Answer {
            try await fixture.sendPush(#"{"user_ids":["\#(ada.id)","\#(bob.id)"],"title":"News","body":"Read it"\#(extra)}"#)
        }

        let dry = try await send(#","dry_run":true"#)
        #expect(dry.status == 200 && dry.object["devices"] == 1 && dry.object["suppressed"]?.objectValue?["quiet_hours"] == 1, "a dry run counts the held: \(dry.text)")
        let sent = try await send("")
        #expect(sent.status == 202 && sent.object["devices"] == 1, "\(sent.text)")
        let held = sent.object["held"]?.objectValue?["quiet_hours"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(held.count == 1 && held.first?["send_at"] == "2026-12-06T06:00:00.000Z" && held.first?["users"] == 1, "\(sent.text)")
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 1 })
        #expect(emulator.emulator.state.deliveries.map(\.token) == [Self.token(1)], "Bob at once, Ada later")
        let id = try #require(sent.object["send_id"]?.stringValue)
        #expect(await waitUntil(within: .seconds(20)) {
            (try? await fixture.call("GET", "/functions/v1/sends/\(id)", bearer: fixture.serviceKey))?.object["suppressed"]?.objectValue?["quiet_hours"] == 1
        })

        // A security alert goes at once; a push that expires before 07:00 is dropped for Ada.
        let alert = try await send(#","kind":"security""#)
        #expect(alert.object["devices"] == 2 && alert.object["held"] == nil, "\(alert.text)")
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 3 })
        let expiring = try await send(#","expiration":\#(Int(time.date.timeIntervalSince1970) + 3600)"#)
        #expect(expiring.object["held"]?.objectValue?["expired_users"] == 1 && expiring.object["held"]?.objectValue?["quiet_hours"]?.arrayValue?.isEmpty == true, "\(expiring.text)")
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 4 })

        // 07:00 in Paris: the held one reaches Ada, once.
        #expect(await fixture.outcomesRecorded(), "before the clock moves on")
        time.advance(by: 7.5 * 3600 + 1)
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 5 })
        #expect(emulator.emulator.state.deliveries.last?.token == Self.token(0))
        #expect(emulator.emulator.state.deliveries.filter { $0.token == Self.token(0) }.count == 2, "the alert, then the held one; the expired one never")
    }
}
