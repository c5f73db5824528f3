import Foundation

/// What a Notification Service Extension makes of a payload: the text, a downloaded attachment,
/// and for a chat message, the communication-notification description.
public struct RichNotification: Sendable, Hashable {
    public var title: String?
    public var body: String?
    /// The image, saved to a local file the system can attach; nil when there was none or the
    /// download failed (the notification is then shown plain).
    public var attachment: Attachment?
    public var communication: CommunicationDescription?

    public struct Attachment: Sendable, Hashable {
        public var identifier: String
        public var fileURL: URL
        public var contentType: String
    }
}

/// A message notification's sender and conversation (INSendMessageIntent's fields).
public struct CommunicationDescription: Sendable, Hashable {
    public var senderName: String
    public var senderID: String?
    /// The sender's avatar, downloaded to a local file.
    public var senderAvatar: URL?
    /// The conversation's identifier: the payload's channel.
    public var conversationID: String?
    public var content: String
}
