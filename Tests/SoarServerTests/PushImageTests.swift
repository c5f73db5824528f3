import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `send-push` and an update with `image`, a storage path: the notification carries a signed
/// URL of a render within Apple's attachment limits, which downloads without a key.
@Suite(.timeLimit(.minutes(2))) struct PushImageTests {
    /// A 1×1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
    static let token = String(repeating: "c4", count: 32)

    @Test func sendPushAndAnUpdateCarryASignedRenderOfAStoragePath() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let bucket = try await fixture.call("POST", "/storage/v1/bucket", bearer: fixture.serviceKey, body: #"{"id":"pics","name":"pics","public":false}"#)
        #expect(bucket.status == 200, "\(bucket.text)")
        let uploaded = try await fixture.call("POST", "/storage/v1/object/pics/a.png", bearer: fixture.serviceKey, headers: ["content-type": "image/png"], bytes: Self.png)
        #expect(uploaded.status == 200, "\(uploaded.text)")
        let user = try await fixture.signUp("picture@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token)","platform":"ios"}"#).status == 201)

        let sent = try await fixture.sendPush(#"{"user_ids":["\#(user.id)"],"title":"Photo","body":"A picture","image":"pics/a.png"}"#)
        #expect(sent.status == 202, "\(sent.text)")
        let send = try #require(sent.object["send_id"]?.stringValue)
        _ = try await fixture.finishedSend(send)
        let payload = try #require(emulator.emulator.state.deliveries.first?.payload.objectValue)
        #expect(payload["aps"]?.objectValue?["mutable-content"] == 1, "\(payload)")
        let link = try #require(payload["image_url"]?.stringValue, "\(payload)")
        #expect(link.hasPrefix(fixture.url + "/storage/v1/render/image/sign/pics/a.png?token="), "\(link)")
        let picture = try await fixture.call("GET", String(link.dropFirst(fixture.url.count)))
        #expect(picture.status == 200 && picture.headers["content-type"] == "image/jpeg", "\(picture.status) \(picture.headers)")
        #expect(picture.body.starts(with: [0xFF, 0xD8]), "a JPEG")

        let updated = try await fixture.call("POST", "/functions/v1/sends/\(send)/update", bearer: fixture.serviceKey, body: #"{"body":"Another","image":"pics/a.png"}"#)
        #expect(updated.status == 202, "\(updated.text)")
        #expect(await waitUntil(within: .seconds(10)) { emulator.emulator.state.deliveries.count == 2 })
        #expect(emulator.emulator.state.deliveries.last?.payload.objectValue?["image_url"]?.stringValue?.contains("/render/image/sign/pics/a.png") == true)

        let missing = try await fixture.sendPush(#"{"user_ids":["\#(user.id)"],"title":"Photo","body":"None","image":"pics/none.png"}"#)
        #expect(missing.status == 404, "an image that is not there is said, not sent: \(missing.text)")
    }
}
