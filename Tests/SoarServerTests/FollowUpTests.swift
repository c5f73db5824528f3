import Foundation
import SoarClient
import SoarClientTesting
import SoarCore
import SoarEmulator
import SoarServer
import SoarTesting
import Testing

/// Update and retract: a send changed after it went out, seen by the emulator (same collapse id,
/// a background retraction) and in the inbox rows (changed in place, then removed).
@Suite(.timeLimit(.minutes(3))) struct FollowUpTests {
    static let tokens = [String(repeating: "5a", count: 32), String(repeating: "5b", count: 32)]

    func header(_ delivery: Delivery, _ name: String) -> String? { delivery.headers.first { $0.0 == name }?.1 }

    @MainActor @Test func anUpdateReplacesTheNotificationAndARetractionTakesItBack() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let user = try await fixture.signUp("followed-up@example.com")
        for token in Self.tokens {
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(token)","platform":"ios"}"#).status == 201)
        }
        let sent = try await fixture.sendPush(#"{"user_ids":["\#(user.id)"],"title":"Sale","body":"Up to 30% off","kind":"promo"}"#)
        let id = try #require(sent.object["send_id"]?.stringValue)
        _ = try await fixture.finishedSend(id)
        let first = emulator.emulator.state.deliveries
        #expect(first.count == 2 && first.allSatisfy { header($0, "apns-collapse-id") == id }, "a send's id is its collapse id")
        let row = try await fixture.call("GET", "/rest/v1/notifications?select=id,title,body,payload", bearer: user.token)
        let rowID = try #require(row.rows.first?["id"]?.stringValue)

        // The update: the same collapse id and inbox row, the new text.
        let update = try await fixture.call(
            "POST", "/functions/v1/sends/\(id)/update", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey], body: #"{"body":"Up to 50% off"}"#)
        #expect(update.status == 202 && update.object["updates"]?.stringValue == id && update.object["devices"] == 2, "\(update.text)")
        let updateID = try #require(update.object["send_id"]?.stringValue)
        #expect(try await fixture.finishedSend(updateID)["delivered"] == 2)
        let updated = emulator.emulator.state.deliveries.dropFirst(2)
        #expect(updated.count == 2 && updated.allSatisfy { header($0, "apns-collapse-id") == id && header($0, "apns-push-type") == "alert" })
        #expect(updated.allSatisfy {
            $0.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"] == "Up to 50% off" && $0.payload.objectValue?["soar_id"]?.stringValue == rowID
                && $0.payload.objectValue?["kind"] == "promo"
        }, "the title and the kind are kept, the row's id too")
        let changed = try await fixture.call("GET", "/rest/v1/notifications?select=id,title,body,payload", bearer: user.token)
        #expect(changed.rows.count == 1 && changed.rows[0]["id"]?.stringValue == rowID && changed.rows[0]["title"] == "Sale" && changed.rows[0]["body"] == "Up to 50% off")
        #expect(changed.rows[0]["payload"]?.objectValue?["soar_id"]?.stringValue == rowID, "\(changed.text)")

        // The retraction: a background push naming the collapse id, the row gone.
        let retract = try await fixture.call("POST", "/functions/v1/sends/\(id)/retract", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey])
        #expect(retract.status == 202 && retract.object["retracts"]?.stringValue == id && retract.object["devices"] == 2, "\(retract.text)")
        #expect(try await fixture.finishedSend(try #require(retract.object["send_id"]?.stringValue))["delivered"] == 2)
        let retractions = emulator.emulator.state.deliveries.dropFirst(4)
        #expect(retractions.count == 2 && retractions.allSatisfy {
            header($0, "apns-push-type") == "background" && header($0, "apns-priority") == "5" && $0.payload.objectValue?["soar_retract"]?.stringValue == id
                && $0.payload.objectValue?["soar_id"]?.stringValue == rowID && $0.payload.objectValue?["aps"] == ["content-available": 1]
        }, "\(retractions.map(\.payload))")
        #expect(try await fixture.call("GET", "/rest/v1/notifications?select=id", bearer: user.token).rows.isEmpty)

        // SoarClient, given what the first device received: the update takes the entry's place, the
        // retraction removes it and asks Notification Center to remove the notification.
        let center = FakeNotificationCenter(status: .authorized)
        let controller = NotificationsController(center: center, registration: FakeRemoteRegistration(token: nil), routes: .seedApp)
        func incoming(_ delivery: Delivery) throws -> IncomingNotification {
            IncomingNotification(identifier: header(delivery, "apns-collapse-id") ?? delivery.apnsID, payload: try Payload(object: delivery.payload.objectValue ?? [:]))
        }
        for delivery in [first[0], updated.first!] { _ = await controller.willPresent(try incoming(delivery)) }
        #expect(controller.inbox.entries.map(\.id) == [rowID] && controller.inbox.entries[0].body == "Up to 50% off")
        #expect(await controller.didReceiveBackground(try incoming(retractions.first!)))
        #expect(controller.inbox.entries.isEmpty && center.removed == [id] && center.badge == 0)
    }

    @Test func mistakesAreNamedAndChangeNothing() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let user = try await fixture.signUp("follow-up-mistakes@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.tokens[0])","platform":"ios"}"#).status == 201)
        let sent = try await fixture.sendPush(#"{"user_ids":["\#(user.id)"],"title":"Hi","body":"there","collapse_id":"greeting"}"#)
        let id = try #require(sent.object["send_id"]?.stringValue)
        _ = try await fixture.finishedSend(id)
        func call(_ path: String, _ body: String?, bearer: String? = nil) async throws -> ServerFixture.Answer {
            try await fixture.call("POST", path, bearer: bearer ?? fixture.serviceKey, headers: ["apikey": fixture.serviceKey], body: body)
        }
        let unknown = try await call("/functions/v1/sends/\(RandomUUID.lowercase())/update", #"{"title":"x"}"#)
        #expect(unknown.status == 404 && unknown.text.contains("no send has the id"), "\(unknown.text)")
        #expect(try await call("/functions/v1/sends/not-a-uuid/retract", nil).status == 404)
        let audience = try await call("/functions/v1/sends/\(id)/update", #"{"user_ids":[]}"#)
        #expect(audience.status == 400 && audience.text.contains("not \\\"user_ids\\\""), "\(audience.text)")
        let tooBig = try await call("/functions/v1/sends/\(id)/update", #"{"body":"\#(String(repeating: "x", count: 5000))"}"#)
        #expect(tooBig.status == 400, "\(tooBig.text)")
        #expect(try await call("/functions/v1/sends/\(id)/update", "[]").status == 400)
        #expect(try await call("/functions/v1/sends/\(id)/retract", nil, bearer: user.token).status == 403)
        let rows = try await fixture.call("GET", "/rest/v1/notifications?select=body", bearer: user.token)
        #expect(rows.rows.map { $0["body"] } == ["there"], "nothing changed")
        #expect(emulator.emulator.state.deliveries.count == 1)

        // A send made with a payload keeps it when only its title changes.
        let rich = try await fixture.sendPush(
            #"{"user_ids":["\#(user.id)"],"payload":{"aps":{"alert":{"title":"Old","body":"Kept"},"sound":"chime.caf","category":"SALE"},"deep_link":"soar:///sale"}}"#)
        let richID = try #require(rich.object["send_id"]?.stringValue)
        _ = try await fixture.finishedSend(richID)
        let retitled = try await call("/functions/v1/sends/\(richID)/update", #"{"title":"New"}"#)
        #expect(retitled.status == 202, "\(retitled.text)")
        _ = try await fixture.finishedSend(try #require(retitled.object["send_id"]?.stringValue))
        let payload = emulator.emulator.state.deliveries.last?.payload.objectValue
        #expect(payload?["aps"] == ["alert": ["title": "New", "body": "Kept"], "sound": "chime.caf", "category": "SALE"] && payload?["deep_link"] == "soar:///sale", "\(String(describing: payload))")

        // A send that named its collapse id is updated under that one.
        let update = try await call("/functions/v1/sends/\(id)/update", #"{"title":"Hello","body":"again"}"#)
        #expect(update.status == 202)
        _ = try await fixture.finishedSend(try #require(update.object["send_id"]?.stringValue))
        #expect(emulator.emulator.state.deliveries.last.map { header($0, "apns-collapse-id") } == "greeting")
    }
}
