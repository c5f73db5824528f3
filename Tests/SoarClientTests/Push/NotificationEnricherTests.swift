import Foundation
import FoundationNetworking
import SoarClient
import SoarCore
import SoarTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct NotificationEnricherTests {
    static let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])

    /// Serves a PNG at /image.png and /avatar.png, HTML at /page, a large file at /big and never answers /slow.
    static let transport = FakeTransport { request in
        switch request.url?.path {
        case "/image.png", "/avatar.png": return (200, ["Content-Type": "image/png"], png)
        case "/page": return (200, ["Content-Type": "text/html"], Data("<html>".utf8))
        case "/big": return (200, ["Content-Type": "image/jpeg"], Data(count: 2_000))
        case "/slow":
            // Never answers in time; ends when the enricher gives up (cancelled) or after a minute.
            try await Task.sleep(for: .seconds(60))
            return (200, [:], Data())
        default: return (404, [:], Data())
        }
    }

    func enricher(_ directory: TemporaryDirectory, clock: ManualClock = ManualClock()) -> NotificationEnricher<ManualClock> {
        NotificationEnricher(
            transport: Self.transport, directory: URL(fileURLWithPath: directory.path), maximumBytes: 1_000, timeout: .seconds(5),
            clock: clock)
    }

    static func payload(_ custom: [String: JSONValue]) -> Payload {
        var payload = Payload.alert(title: "Maya", body: "Loved the edit!", custom: custom)
        payload.aps.fields["mutable-content"] = .int(1)
        return payload
    }

    @Test func anImageIsDownloadedAndAttached() async throws {
        let directory = TemporaryDirectory("soar-enricher")
        let rich = await enricher(directory).enrich(Self.payload(["image_url": "https://cdn.example/image.png"]))
        let attachment = try #require(rich.attachment)
        #expect(attachment.contentType == "image/png" && attachment.fileURL.pathExtension == "png")
        #expect(try Data(contentsOf: attachment.fileURL) == Self.png)
        #expect(rich.title == "Maya" && rich.body == "Loved the edit!" && rich.communication == nil)
    }

    @Test func aMessageBecomesACommunicationNotification() async throws {
        let directory = TemporaryDirectory("soar-enricher")
        let rich = await enricher(directory).enrich(Self.payload([
            "sender_name": "Maya", "sender_id": "u-7", "avatar_url": "https://cdn.example/avatar.png", "channel_id": "campaign-42",
        ]))
        let communication = try #require(rich.communication)
        #expect(communication.senderName == "Maya" && communication.senderID == "u-7")
        #expect(communication.conversationID == "campaign-42" && communication.content == "Loved the edit!")
        #expect(communication.senderAvatar?.pathExtension == "png")
    }

    @Test func anyFailureFallsBackToThePlainNotification() async throws {
        let directory = TemporaryDirectory("soar-enricher")
        let enricher = enricher(directory)
        for link in ["https://cdn.example/page", "https://cdn.example/big", "https://cdn.example/missing", "ftp://x/y.png", "not a url"] {
            let rich = await enricher.enrich(Self.payload(["image_url": .string(link)]))
            #expect(rich.attachment == nil, "\(link)")
            #expect(rich.title == "Maya" && rich.body == "Loved the edit!")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing half-saved")
    }

    @Test func aDownloadThatOutlivesTheTimeoutIsGivenUp() async {
        let clock = ManualClock()
        let enricher = enricher(TemporaryDirectory("soar-enricher"), clock: clock)
        let enriching = Task { await enricher.enrich(Self.payload(["image_url": "https://cdn.example/slow"])) }
        // On a busy machine the task may take a while to start: wait for its sleep, however long.
        #expect(await waitUntil(within: .seconds(50)) { clock.sleeping == 1 })
        clock.advance(by: .seconds(4))
        #expect(clock.sleeping == 1, "not yet")
        clock.advance(by: .seconds(1))
        let rich = await enriching.value
        #expect(rich.attachment == nil && rich.body == "Loved the edit!")
    }
}

@Suite(.timeLimit(.minutes(1))) struct ServerInboxTests {
    @Test func theServersRowsAreReadAndOpensReported() async throws {
        let fixture = try ClientFixture()
        let session = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        // The server writes inbox rows when it sends; the service role stands in for a send here.
        let id = UUID().uuidString.lowercased()
        let row = #"{"id":"\#(id)","user_id":"\#(session.user.id.uuidString.lowercased())","title":"Hi","body":"there","payload":{"deeplink":"soar:///todos"},"created_at":"2026-01-01T00:00:00Z"}"#
        let insert = try await fixture.server.call("POST", "/rest/v1/notifications", bearer: fixture.server.serviceKey, headers: ["apikey": fixture.server.serviceKey], body: row)
        #expect(insert.status == 201, "\(insert.text)")
        let inbox = ServerInbox(client: fixture.client)
        let entries = try await inbox.fetch()
        #expect(entries.map(\.id) == [id] && entries[0].routed(by: .seedApp).route == AppRoute("todos") && !entries[0].isRead && entries[0].isOnServer)
        try await inbox.markOpened(id, at: Date())
        let opened = try await fixture.server.call("GET", "/rest/v1/notifications?select=opened_at,read_at", bearer: fixture.server.serviceKey, headers: ["apikey": fixture.server.serviceKey])
        #expect(opened.rows.first?["opened_at"]?.stringValue != nil && opened.rows.first?["read_at"]?.stringValue != nil)
        #expect(try await inbox.fetch().first?.isRead == true)
    }
}
