import Foundation
import SoarCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Seed 001's Notification Service Extension without the platform: downloads the image and the
/// sender's avatar within limits, and describes a message as a communication notification.
///
/// Payload keys: `image_url` (or `attachment_url`) for the picture; `sender_name`, `sender_id`,
/// `avatar_url` and `channel_id` (or `conversation_id`) for a message. Any failure (a slow or
/// large download, a non-image, a bad URL) falls back to the plain notification: ``enrich(_:)``
/// never throws.
public struct NotificationEnricher<C: Clock>: Sendable where C.Duration == Duration {
    private let transport: any HTTPTransport
    private let directory: URL
    private let maximumBytes: Int
    private let timeout: Duration
    private let clock: C

    /// - Parameters:
    ///   - directory: where downloads are saved (the extension's temporary directory).
    ///   - maximumBytes: the largest attachment kept (APNs images are capped at 10 MB).
    ///   - timeout: the longest one download may take; the extension has about 30 s in all.
    public init(transport: any HTTPTransport, directory: URL, maximumBytes: Int = 10_000_000, timeout: Duration = .seconds(10), clock: C) {
        self.transport = transport
        self.directory = directory
        self.maximumBytes = maximumBytes
        self.timeout = timeout
        self.clock = clock
    }

    public func enrich(_ payload: Payload) async -> RichNotification {
        let text = IncomingNotification(identifier: "", payload: payload)
        var rich = RichNotification(title: text.title, body: text.body)
        if let link = Self.string(payload, "image_url", "attachment_url"), let url = URL(string: link) {
            if let (file, type) = await download(url) {
                rich.attachment = RichNotification.Attachment(identifier: "image", fileURL: file, contentType: type)
            }
        }
        if let sender = Self.string(payload, "sender_name") {
            var avatar: URL?
            if let link = Self.string(payload, "avatar_url", "sender_avatar_url"), let url = URL(string: link) {
                avatar = await download(url)?.file
            }
            rich.communication = CommunicationDescription(
                senderName: sender, senderID: Self.string(payload, "sender_id"), senderAvatar: avatar,
                conversationID: Self.string(payload, "channel_id", "conversation_id"), content: text.body ?? "")
        }
        return rich
    }

    /// Downloads an image within the size and time limits; nil on any failure.
    func download(_ url: URL) async -> (file: URL, contentType: String)? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return nil }
        let transport = transport
        let answer: (Data, HTTPURLResponse)? = await withTaskGroup(of: (Data, HTTPURLResponse)?.self) { group in
            group.addTask { try? await transport.send(URLRequest(url: url)) }
            group.addTask { [clock, timeout] in
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let (data, response) = answer, response.statusCode == 200, !data.isEmpty, data.count <= maximumBytes else { return nil }
        let type = (response.value(forHTTPHeaderField: "Content-Type") ?? "").split(separator: ";").first.map(String.init) ?? ""
        guard let suffix = Self.extensions[type.lowercased()] else { return nil }
        let file = directory.appendingPathComponent(UUID().uuidString + "." + suffix)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file)
        } catch {
            return nil
        }
        return (file, type)
    }

    /// The image types a notification can attach, with the file extension the system needs.
    static var extensions: [String: String] {
        ["image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/heic": "heic", "image/webp": "webp"]
    }

    private static func string(_ payload: Payload, _ keys: String...) -> String? {
        keys.lazy.compactMap { payload.custom[$0]?.stringValue }.first { !$0.isEmpty }
    }
}

extension NotificationEnricher where C == ContinuousClock {
    public init(transport: any HTTPTransport = URLSessionTransport(), directory: URL, maximumBytes: Int = 10_000_000, timeout: Duration = .seconds(10)) {
        self.init(transport: transport, directory: directory, maximumBytes: maximumBytes, timeout: timeout, clock: ContinuousClock())
    }
}
