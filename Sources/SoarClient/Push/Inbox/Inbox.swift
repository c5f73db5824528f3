import Foundation
import SoarCore

/// A notification kept in the app's inbox.
public struct InboxEntry: Sendable, Hashable, Identifiable {
    /// The server's inbox row id (`soar_id`) when the payload carries one, else the notification's.
    public var id: String
    public var title: String?
    public var body: String?
    /// The payload's own keys (`kind`, `target_url`…), as the push or the server's row has them.
    public var data: [String: JSONValue]
    /// The link a tap follows and the screen it opens, read from `data` by the app's route table
    /// when the entry enters the controller's inbox.
    public var link: String?
    public var route: AppRoute?
    public var receivedAt: Date
    public var isRead: Bool
    /// True when the server knows this entry (it has a `soar_id`), so reads and opens are reported.
    public var isOnServer: Bool

    public init(_ notification: IncomingNotification, isRead: Bool = false) {
        id = notification.serverID ?? notification.identifier
        title = notification.title
        body = notification.body
        data = notification.payload.custom
        receivedAt = notification.date
        self.isRead = isRead
        isOnServer = notification.serverID != nil
    }

    public init(id: String, title: String?, body: String?, data: [String: JSONValue], receivedAt: Date, isRead: Bool, isOnServer: Bool) {
        self.id = id
        self.title = title
        self.body = body
        self.data = data
        self.receivedAt = receivedAt
        self.isRead = isRead
        self.isOnServer = isOnServer
    }

    /// The entry with its link and route read by `routes`.
    public func routed(by routes: RouteTable) -> InboxEntry {
        var entry = self
        let payload = Payload(custom: data)
        entry.link = routes.link(in: payload)
        entry.route = routes.route(for: payload)
        return entry
    }
}

/// The in-app inbox: newest first, at most ``capacity`` entries, one per notification.
public struct Inbox: Sendable, Hashable {
    public static let capacity = 50
    public private(set) var entries: [InboxEntry] = []

    public init(entries: [InboxEntry] = []) {
        merge(entries)
    }

    public var unreadCount: Int { entries.count { !$0.isRead } }

    /// Adds an entry, or refreshes the one with the same id (keeping it read if it was).
    public mutating func insert(_ entry: InboxEntry) {
        merge([entry])
    }

    /// Adds entries (the server's copy, say), newest first, dropping the oldest beyond the cap.
    public mutating func merge(_ incoming: [InboxEntry]) {
        for entry in incoming {
            if let index = entries.firstIndex(where: { $0.id == entry.id }) {
                var merged = entry
                merged.isRead = entry.isRead || entries[index].isRead
                entries[index] = merged
            } else {
                entries.append(entry)
            }
        }
        entries.sort { $0.receivedAt > $1.receivedAt }
        if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
    }

    /// Marks an entry read; returns whether it changed.
    @discardableResult
    public mutating func markRead(_ id: String) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }), !entries[index].isRead else { return false }
        entries[index].isRead = true
        return true
    }

    public mutating func remove(_ id: String) { entries.removeAll { $0.id == id } }

    public mutating func removeAll() { entries = [] }
}
