import Foundation
import SoarCore
import SoarEmulator
import SoarPush
import SoarServer
import SoarStore
import SoarTesting
import Testing

/// `send-push` with `send_at`: stored, listed, cancelled, and sent once when the (injected)
/// clock reaches it.
@Suite(.timeLimit(.minutes(3))) struct ScheduledSendsTests {
    static let token = String(repeating: "5c", count: 32)

    @Test func aScheduledSendGoesOutOnceWhenItFallsDue() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        let user = try await fixture.signUp("later@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token)","platform":"ios"}"#).status == 201)
        func send(_ body: String) async throws -> ServerFixture.Answer {
            try await fixture.sendPush(body)
        }
        let inAnHour = Timestamp.format(time.date.addingTimeInterval(3600))
        let scheduled = try await send(#"{"user_ids":["\#(user.id)"],"title":"Later","body":"In an hour","send_at":"\#(inAnHour)"}"#)
        #expect(scheduled.status == 202 && scheduled.object["schedule_id"] != nil, "\(scheduled.text)")
        let id = try #require(scheduled.object["schedule_id"]?.stringValue)
        let cancelledOne = try await send(#"{"user_ids":["\#(user.id)"],"title":"Never","body":"Cancelled","send_at":"\#(inAnHour)"}"#)
        let other = try #require(cancelledOne.object["schedule_id"]?.stringValue)

        let listed = try await fixture.call("GET", "/functions/v1/schedules", bearer: fixture.serviceKey)
        #expect(listed.status == 200 && listed.rows.count == 2 && listed.rows.allSatisfy { $0["status"] == "scheduled" }, "\(listed.text)")
        let cancel = try await fixture.call("DELETE", "/functions/v1/schedules/\(other)", bearer: fixture.serviceKey)
        #expect(cancel.status == 200 && cancel.object["status"] == "cancelled", "\(cancel.text)")
        let again = try await fixture.call("DELETE", "/functions/v1/schedules/\(other)", bearer: fixture.serviceKey)
        #expect(again.status == 409, "\(again.text)")
        let byUser = try await fixture.call("GET", "/functions/v1/schedules", bearer: user.token)
        #expect(byUser.status == 403)

        // Once the clock passes its time, the one left goes, once.
        #expect(emulator.emulator.state.deliveries.isEmpty)
        time.advance(by: 3601)
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 1 })
        // Marked sent once its send is stored: the delivery may come first.
        #expect(await waitUntil(within: .seconds(10)) {
            (try? await fixture.call("GET", "/functions/v1/schedules/\(id)", bearer: fixture.serviceKey).object["status"]) == "sent"
        })
        let done = try await fixture.call("GET", "/functions/v1/schedules/\(id)", bearer: fixture.serviceKey)
        #expect(done.object["status"] == "sent" && done.object["send"] == .string("/functions/v1/sends/\(id)"), "\(done.text)")
        let stats = try await fixture.call("GET", "/functions/v1/sends/\(id)", bearer: fixture.serviceKey)
        #expect(stats.object["total"] == 1, "\(stats.text)")
        let skipped = try await fixture.call("GET", "/functions/v1/schedules/\(other)", bearer: fixture.serviceKey)
        #expect(skipped.object["status"] == "cancelled" && emulator.emulator.state.deliveries.count == 1, "sent once, the cancelled one never")
        #expect(emulator.emulator.state.deliveries.first?.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"] == "Later")

        // A time already past sends at once; a time that is not one is refused.
        let past = try await send(#"{"user_ids":["\#(user.id)"],"title":"Now","body":"b","send_at":"2020-01-01T00:00:00Z"}"#)
        #expect(past.status == 202 && past.object["send_id"] != nil, "\(past.text)")
        let bad = try await send(#"{"user_ids":["\#(user.id)"],"title":"a","body":"b","send_at":"tomorrow"}"#)
        #expect(bad.status == 400 && bad.text.contains("send_at"), "\(bad.text)")
        let wallClock = try await send(#"{"user_ids":["\#(user.id)"],"title":"a","body":"b","send_at":"2027-01-01T09:00:00"}"#)
        #expect(wallClock.status == 400 && wallClock.text.contains("offset"), "a time without its offset: \(wallClock.text)")
    }

    @Test func aSendAStoppedRunStoredPartOfIsFinishedNotTakenForSent() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        var devices: [(user: String, token: String)] = []
        for n in 0..<5 {
            let user = try await fixture.signUp("resumed\(n)@example.com")
            let token = String(format: "%02x", 0xa0 + n) + String(repeating: "5d", count: 31)
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(token)","platform":"ios"}"#).status == 201)
            devices.append((user.id, token))
        }
        devices.sort { $0.user < $1.user }
        let ids = devices.map { "\"\($0.user)\"" }.joined(separator: ",")
        let scheduled = try await fixture.sendPush(
            #"{"user_ids":[\#(ids)],"title":"Later","body":"b","send_at":"\#(Timestamp.format(time.date.addingTimeInterval(3600)))"}"#)
        let id = try #require(scheduled.object["schedule_id"]?.stringValue)
        // A run that claimed it and stored the first two users' devices, then stopped.
        let store = fixture.server.store
        let request = try #require(try store.schedule(id: id)?.request)
        _ = try store.claimDueSchedule(now: Timestamp.postgres(time.date.addingTimeInterval(3600)), stale: Timestamp.postgres(time.date))
        try store.createSend(id: id, request: request, total: 5)
        try store.appendToSend(
            id: id, jobs: devices.prefix(2).map { NewPushJob(userID: $0.user, token: $0.token, environment: nil, bundleID: nil, apnsID: RandomUUID.lowercase()) },
            notifications: [], inboxSize: 500, badgeUnread: false)

        // Its claim goes stale: the next run stores the other three users' devices, not all five again.
        #expect(await fixture.outcomesRecorded(), "before the clock moves on")
        time.advance(by: 3600 + PushService.staleClaim + 1)
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 5 })
        let tokens = emulator.emulator.state.deliveries.map(\.token)
        #expect(Set(tokens) == Set(devices.map(\.token)) && tokens.count == 5, "each device once")
        let stats = try await fixture.finishedSend(id)
        #expect(stats["total"] == 5 && stats["delivered"] == 5, "\(stats)")
        // Marked sent once its send is stored: the deliveries may finish first.
        #expect(await waitUntil(within: .seconds(10)) {
            (try? await fixture.call("GET", "/functions/v1/schedules/\(id)", bearer: fixture.serviceKey).object["status"]) == "sent"
        })
    }
}
