import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `send-push` to a segment written in the data API's filter syntax on `device_tokens`, its dry
/// run, and its mistakes answered as the data API answers them.
@Suite(.timeLimit(.minutes(3))) struct PushSegmentsTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "bb", count: 30) }

    @Test func aSegmentReachesTheDevicesItMatches() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let devices = [("2.1.0", "fr_FR", "Europe/Paris"), ("1.9.3", "fr_CA", "America/Toronto"), ("2.4.0", "de_DE", "Europe/Berlin")]
        for (n, device) in devices.enumerated() {
            let user = try await fixture.signUp("s\(n)@example.com")
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens", bearer: user.token,
                body: #"{"token":"\#(Self.token(n))","platform":"ios","app_version":"\#(device.0)","locale":"\#(device.1)","time_zone":"\#(device.2)"}"#)
            #expect(answer.status == 201, "\(answer.text)")
        }
        func send(_ body: String) async throws -> ServerFixture.Answer {
            try await fixture.sendPush(body)
        }
        let french = #"locale=like.fr*&app_version=gte.2.0"#
        let dry = try await send(#"{"segment":"\#(french)","title":"Bonjour","body":"Nouveau","dry_run":true}"#)
        #expect(dry.status == 200 && dry.object["devices"] == 1 && dry.object["dry_run"] == true, "\(dry.text)")
        #expect(emulator.emulator.state.deliveries.isEmpty, "a dry run sends nothing")
        let either = try await send(#"{"segment":"or=(locale.like.de*,time_zone.eq.America/Toronto)","title":"a","body":"b","dry_run":true}"#)
        #expect(either.object["devices"] == 2, "\(either.text)")

        let sent = try await send(#"{"segment":"\#(french)","title":"Bonjour","body":"Nouveau"}"#)
        #expect(sent.status == 202 && sent.object["devices"] == 1, "\(sent.text)")
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 1 })
        #expect(emulator.emulator.state.deliveries.map(\.token) == [Self.token(0)])

        let unknown = try await send(#"{"segment":"shoe_size=eq.42","title":"a","body":"b","dry_run":true}"#)
        #expect(unknown.status == 400 && unknown.text.contains("shoe_size"), "\(unknown.text)")
        let garbled = try await send(#"{"segment":"locale=nope.fr","title":"a","body":"b"}"#)
        #expect(garbled.status == 400 && garbled.text.contains("segment"), "\(garbled.text)")
        let ordered = try await send(#"{"segment":"order=locale","title":"a","body":"b"}"#)
        #expect(ordered.status == 400 && ordered.text.contains("only filters"), "\(ordered.text)")
    }

    @Test func aSegmentFiltersOnTheAppsOwnUserAttributes() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        // Three users: a Paris profile with an active subscription, a Paris profile without, a Lyon one with.
        let people = [("Paris", true), ("Paris", false), ("Lyon", true)]
        for (n, person) in people.enumerated() {
            let user = try await fixture.signUp("attributes\(n)@example.com")
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(10 + n))","platform":"ios","locale":"fr_FR"}"#).status == 201)
            #expect(try await fixture.call("POST", "/rest/v1/profiles", bearer: user.token, body: #"{"location":"\#(person.0)"}"#).status == 201)
            if person.1 {
                let subscription = #"{"user_id":"\#(user.id)","product_id":"pro.monthly","status":"active"}"#
                #expect(try await fixture.call("POST", "/rest/v1/subscriptions", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey], body: subscription).status == 201)
            }
        }
        func count(_ segment: String) async throws -> ServerFixture.Answer {
            try await fixture.sendPush(#"{"segment":"\#(segment)","title":"a","body":"b","dry_run":true}"#)
        }
        #expect(try await count("profiles.location=eq.Paris").object["devices"] == 2)
        #expect(try await count("profiles.location=eq.Paris&subscriptions.status=eq.active").object["devices"] == 1, "two tables, each by its own key")
        #expect(try await count("locale=like.fr*&subscriptions.status=eq.active&subscriptions.product_id=like.pro*").object["devices"] == 2)
        let sent = try await fixture.sendPush(#"{"segment":"profiles.location=eq.Lyon","title":"Lyon","body":"b"}"#)
        #expect(sent.status == 202 && sent.object["devices"] == 1, "\(sent.text)")
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.map(\.token) == [Self.token(12)] })
        let unknownTable = try await count("planets.name=eq.Mars")
        #expect(unknownTable.status == 400 && unknownTable.text.contains("planets is not a table"), "\(unknownTable.text)")
        let unknownColumn = try await count("profiles.shoe_size=eq.42")
        #expect(unknownColumn.status == 400 && unknownColumn.text.contains("shoe_size"), "\(unknownColumn.text)")
    }
}
