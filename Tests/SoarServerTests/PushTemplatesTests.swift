import Foundation
import SoarCore
import SoarEmulator
import SoarServer
import SoarTesting
import Testing

/// Templates: named, with variables and a variant per locale, checked when saved; a send from one
/// gives each device the variant its locale matches (exact, then shorter, then the default).
@Suite(.timeLimit(.minutes(3))) struct PushTemplatesTests {
    static let welcome = #"""
        {"default_locale": "en", "variables": {"name": 40, "count": 6},
         "variants": {"en": {"title": "Hi {{name}}", "body": "You have {{ count }} new followers"},
                      "fr": {"title": "Bonjour {{name}}", "body": "Vous avez {{count}} nouveaux abonnés"},
                      "de-AT": {"title": "Servus {{name}}", "body": "{{count}} neue Follower"}}}
        """#

    func put(_ fixture: ServerFixture, _ name: String, _ body: String) async throws -> ServerFixture.Answer {
        try await fixture.call("PUT", "/functions/v1/templates/\(name)", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey], body: body)
    }

    @Test func aTemplateIsCheckedWhenSavedAndReadBack() async throws {
        let fixture = try await ServerFixture.start(push: try EmulatorFixture().pushSettings())
        let created = try await put(fixture, "welcome", Self.welcome)
        #expect(created.status == 201 && created.object["default_locale"] == "en" && created.object["variants"]?.objectValue?["de-at"] != nil, "\(created.text)")
        #expect(try await put(fixture, "welcome", Self.welcome).status == 200, "saved again: replaced")
        let mistakes: [(String, String)] = [
            (#"{"default_locale":"en","variables":{},"variants":{"en":{"body":"Hi {{name}}"}}}"#, "uses {{name}}, which is not one of the variables (none declared)"),
            (#"{"default_locale":"en","variables":{"name":9},"variants":{"en":{"body":"Hi {{name}"}}}"#, "opens a {{ it never closes"),
            (#"{"default_locale":"fr","variables":{},"variants":{"en":{"body":"Hi"}}}"#, "default_locale must name one of the variants (en)"),
            (#"{"default_locale":"en","variables":{},"variants":{"english":{"body":"Hi"}}}"#, "is not a locale"),
            (#"{"default_locale":"en","variables":{"name":3000},"variants":{"en":{"title":"{{name}}","body":"{{name}}"}}}"#, "too large with every variable at its longest"),
            (#"{"default_locale":"en","variables":{"name":0},"variants":{"en":{"body":"{{name}}"}}}"#, "variables.name must be its longest value in bytes"),
            (#"{"default_locale":"en","variants":{"en":{"title":"no body"}}}"#, "variants.en must have a body"),
            (#"{"default_locale":"en","variants":{"en":{"body":"x","sound":"default"}}}"#, "a variant has title, subtitle and body"),
        ]
        for (body, message) in mistakes {
            let answer = try await put(fixture, "broken", body)
            #expect(answer.status == 400 && answer.text.contains(message), "\(body): \(answer.text)")
        }
        #expect(try await put(fixture, "Bad Name", Self.welcome).status == 400)
        let list = try await fixture.call("GET", "/functions/v1/templates", bearer: fixture.serviceKey)
        #expect(list.json?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["welcome"], "nothing broken was saved: \(list.text)")
        #expect(try await fixture.call("GET", "/functions/v1/templates/welcome", bearer: fixture.serviceKey).object["variables"] == ["name": 40, "count": 6])
        let user = try await fixture.signUp("templates-reader@example.com")
        #expect(try await fixture.call("GET", "/functions/v1/templates", bearer: user.token).status == 403)
        #expect(try await fixture.call("DELETE", "/functions/v1/templates/welcome", bearer: fixture.serviceKey).status == 200)
        #expect(try await fixture.call("GET", "/functions/v1/templates/welcome", bearer: fixture.serviceKey).status == 404)
    }

    @Test func eachDeviceGetsTheVariantOfItsLocale() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        #expect(try await put(fixture, "welcome", Self.welcome).status == 201)
        // Locale as registered → the variant expected.
        let devices: [(String?, String)] = [
            ("fr-FR", "Bonjour Ada"), ("fr_CA", "Bonjour Ada"), ("de_AT@currency=EUR", "Servus Ada"), ("de", "Hi Ada"), ("en-US", "Hi Ada"), (nil, "Hi Ada"),
        ]
        var users: [(id: String, token: String, title: String)] = []
        for (index, (locale, title)) in devices.enumerated() {
            let user = try await fixture.signUp("templated-\(index)@example.com")
            let token = String(repeating: String(format: "%02x", 0x70 + index), count: 32)
            let localeField = locale.map { #","locale":"\#($0)""# } ?? ""
            let row = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(token)","platform":"ios"\#(localeField)}"#)
            #expect(row.status == 201, "\(row.text)")
            users.append((user.id, token, title))
        }
        let ids = users.map { "\"\($0.id)\"" }.joined(separator: ",")
        let mistakes: [(String, String)] = [
            (#"{"user_ids":[\#(ids)],"template":"welcome","data":{"name":"Ada"}}"#, "data lacks count, which the template welcome uses"),
            (#"{"user_ids":[\#(ids)],"template":"welcome","data":{"name":"Ada","count":3,"city":"Paris"}}"#, "data.city is not one of the template welcome's variables"),
            (#"{"user_ids":[\#(ids)],"template":"welcome","data":{"name":"\#(String(repeating: "a", count: 41))","count":3}}"#, "data.name is 41 bytes; the template welcome allows 40"),
            (#"{"user_ids":[\#(ids)],"template":"welcome","title":"x","data":{"name":"Ada","count":3}}"#, "give a template or title, not both"),
        ]
        for (body, message) in mistakes {
            let answer = try await fixture.sendPush(body)
            #expect(answer.status == 400 && answer.text.contains(message), "\(answer.text)")
        }
        let unknown = try await fixture.sendPush(#"{"user_ids":[\#(ids)],"template":"nope"}"#)
        #expect(unknown.status == 404 && unknown.object["error"] == "unknown_template", "\(unknown.text)")

        let sent = try await fixture.sendPush(#"{"user_ids":[\#(ids)],"template":"welcome","data":{"name":"Ada","count":3},"kind":"social"}"#)
        #expect(sent.status == 202, "\(sent.text)")
        #expect(try await fixture.finishedSend(try #require(sent.object["send_id"]?.stringValue))["delivered"] == .int(devices.count))
        let deliveries = emulator.emulator.state.deliveries
        for user in users {
            let alert = deliveries.first { $0.token == user.token }?.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue
            #expect(alert?["title"]?.stringValue == user.title, "\(user.token.prefix(4)): \(String(describing: alert))")
            let row = try await fixture.call("GET", "/rest/v1/notifications?select=title,payload&user_id=eq.\(user.id)", bearer: fixture.serviceKey)
            #expect(row.rows.first?["title"]?.stringValue == user.title, "the inbox row is in the user's language: \(row.text)")
        }
        #expect(deliveries.allSatisfy { $0.payload.objectValue?["kind"] == "social" }, "the send's other fields reach every variant")

        // An update with plain text reaches every locale with it (not the old variants again);
        // one from the template gives each its own again.
        let sendID = try #require(sent.object["send_id"]?.stringValue)
        func update(_ body: String) async throws -> [Delivery] {
            let before = emulator.emulator.state.deliveries.count
            let answer = try await fixture.call(
                "POST", "/functions/v1/sends/\(sendID)/update", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey], body: body)
            #expect(answer.status == 202, "\(answer.text)")
            _ = try await fixture.finishedSend(try #require(answer.object["send_id"]?.stringValue))
            return Array(emulator.emulator.state.deliveries.dropFirst(before))
        }
        let plain = try await update(#"{"title":"Sale","body":"For everyone"}"#)
        #expect(plain.count == devices.count && plain.allSatisfy {
            $0.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"] == "Sale" && $0.payload.objectValue?["kind"] == "social"
        }, "\(plain.map(\.payload))")
        let again = try await update(#"{"template":"welcome","data":{"name":"Bo","count":4}}"#)
        for user in users {
            let title = again.first { $0.token == user.token }?.payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"]?.stringValue
            #expect(title == user.title.replacingOccurrences(of: "Ada", with: "Bo"), "\(String(describing: title))")
        }
        let stray = try await fixture.sendPush(#"{"user_ids":[\#(ids)],"title":"a","body":"b","data":{"name":"x"}}"#)
        #expect(stray.status == 400 && stray.text.contains("it goes with template"), "\(stray.text)")
    }

    @Test func applesLocKeysPassThrough() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let token = String(repeating: "7f", count: 32)
        let sent = try await fixture.sendPush(
            #"{"tokens":["\#(token)"],"payload":{"aps":{"alert":{"title-loc-key":"INVITE_TITLE","loc-key":"INVITE_BODY","loc-args":["Ada","chess"]}}}}"#)
        #expect(sent.status == 202, "\(sent.text)")
        _ = try await fixture.finishedSend(try #require(sent.object["send_id"]?.stringValue))
        let alert = emulator.emulator.state.deliveries.first?.payload.objectValue?["aps"]?.objectValue?["alert"]
        #expect(alert == ["title-loc-key": "INVITE_TITLE", "loc-key": "INVITE_BODY", "loc-args": ["Ada", "chess"]])
    }
}
