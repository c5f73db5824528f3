import Foundation
import FoundationNetworking
import SoarClient
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// SoarClient's storage against an in-process `soar serve`: the starter's avatars bucket through
/// `client.storage`, the profile screen's avatar, and a push whose picture is a storage path,
/// downloaded by the Notification Service Extension's enricher through its signed URL.
@Suite(.timeLimit(.minutes(2))) struct StorageClientTests {
    /// A 64 × 48 PNG.
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAAU0lEQVR4nO3PQQ3AIADAQEAIOpGIrIngcVnSU9DOfe74s6UDXjWgNaA1oDWgNaA1oDWgNaA1oDWgNaA1oDWgNaA1oDWgNaA1oDWgNaA1oDWgNaB9ZrIBvgrj1UYAAAAASUVORK5CYII="
    )!

    @Test func avatarsUpDownAndRefusedOutsideOnesFolder() async throws {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let folder = user.uuidString.lowercased()
        let avatars = fixture.client.storage.from("avatars")
        let uploaded = try await avatars.upload("\(folder)/me.png", data: Self.png, options: FileOptions(contentType: "image/png"))
        #expect(uploaded.fullPath == "avatars/\(folder)/me.png" && !uploaded.id.isEmpty)
        #expect(try await avatars.download(path: "\(folder)/me.png") == Self.png)
        let (data, _) = try await URLSession.shared.data(from: avatars.getPublicURL(path: "\(folder)/me.png"))
        #expect(data == Self.png, "a public bucket's object without a key")
        let thumb = try await avatars.download(path: "\(folder)/me.png", options: TransformOptions(width: 16, format: "webp"))
        #expect(thumb.prefix(4) == Data("RIFF".utf8), "a WebP render")
        let signed = try await avatars.createSignedURL(path: "\(folder)/me.png", expiresIn: 60)
        #expect(try await URLSession.shared.data(from: signed).0 == Self.png)
        #expect(try await avatars.list(path: folder).map(\.name) == ["me.png"])
        // Another user's folder: Storage's 403, by its own status (sent as HTTP 400).
        let error = await #expect(throws: AppError.self) {
            try await avatars.upload("\(UUID().uuidString.lowercased())/x.png", data: Self.png, options: FileOptions(contentType: "image/png"))
        }
        #expect(error?.status == 403 && error?.code == .authentication, "\(String(describing: error))")
        let duplicate = await #expect(throws: AppError.self) {
            try await avatars.upload("\(folder)/me.png", data: Self.png, options: FileOptions(contentType: "image/png"))
        }
        #expect(duplicate?.status == 409)
        #expect(try await avatars.remove(paths: ["\(folder)/me.png"]) == ["\(folder)/me.png"])
    }

    @Test func theProfileScreenSetsAnAvatar() async throws {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let repository = ProfileRepository(remote: ProfileRemoteDataSource(client: fixture.client), avatars: StorageAvatarStore(client: fixture.client))
        let profile = try await repository.setAvatar(Self.png, contentType: "image/png", userId: user).get()
        let url = try #require(profile.avatarURL.flatMap(URL.init(string:)))
        #expect(url.path.hasSuffix("/storage/v1/object/public/avatars/\(user.uuidString.lowercased())/avatar.png"))
        #expect(try await URLSession.shared.data(from: url).0 == Self.png)
        // A second one replaces it (upsert); a file that is not an image is refused before any upload.
        #expect(try await repository.setAvatar(Self.png, contentType: "image/png", userId: user).get().avatarURL != nil)
        guard case .failure(let refused) = await repository.setAvatar(Data("text".utf8), contentType: "text/plain", userId: user) else {
            Issue.record("a text file became an avatar")
            return
        }
        #expect(refused.code == .validation)
    }

    @Test func aPushsPictureIsAStoragePathTheExtensionDownloads() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try ClientFixture(server: try await ServerFixture.start(push: try emulator.pushSettings()))
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let folder = user.uuidString.lowercased()
        _ = try await fixture.client.storage.from("avatars").upload("\(folder)/pic.png", data: Self.png, options: FileOptions(contentType: "image/png"))
        let token = String(repeating: "ab", count: 32)
        try await fixture.client.from("device_tokens").upsert(["user_id": folder, "token": token, "platform": "ios"], onConflict: "user_id,token").execute()
        try await fixture.client.functions.invoke(
            "send-test-push", options: InvokeOptions(body: ["title": "Photo", "body": "A picture", "image": "avatars/\(folder)/pic.png"]))
        let delivered = try #require(emulator.emulator.state.deliveries.first?.payload)
        let payload = try Payload(object: try #require(delivered.objectValue))
        #expect(payload.aps.mutableContent, "the extension runs only with mutable-content")
        let link = try #require(payload.custom["image_url"]?.stringValue)
        #expect(link.contains("/storage/v1/render/image/sign/avatars/\(folder)/pic.png?token="), "\(link)")
        let directory = TemporaryDirectory("soar-push-image")
        let enricher = NotificationEnricher(transport: URLSessionTransport(), directory: URL(fileURLWithPath: directory.path), clock: ContinuousClock())
        let rich = await enricher.enrich(payload)
        let attachment = try #require(rich.attachment, "the enricher downloads the signed render")
        #expect(attachment.contentType == "image/jpeg")
        // A path the sender may not read is refused, naming it.
        let refused = await #expect(throws: AppError.self) {
            try await fixture.client.functions.invoke(
                "send-test-push", options: InvokeOptions(body: ["title": "x", "body": "y", "image": "avatars/\(folder)/none.png"]))
        }
        #expect(refused?.status == 404)
    }
}
