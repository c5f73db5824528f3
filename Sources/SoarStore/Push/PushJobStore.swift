import Foundation
/// One device's part of a send, as it is stored before it goes out.
public struct NewPushJob: Sendable {
    public let userID: String?
    public let token: String
    public let environment: String?
    public let bundleID: String?
    /// Chosen once, so a retry after a crash carries the same `apns-id`.
    public let apnsID: String
    /// The user's inbox row for this notification (the payload's `soar_id`).
    public let notificationID: String?
    /// `aps.badge` for this device, when the send asked for the unread count.
    public let badge: Int?
    /// The send's locale variant this device gets (its locale, as matched); nil: the send's payload.
    public let variant: String?

    public init(
        userID: String?, token: String, environment: String?, bundleID: String?, apnsID: String, notificationID: String? = nil, badge: Int? = nil,
        variant: String? = nil
    ) {
        self.variant = variant
        self.userID = userID
        self.token = token
        self.environment = environment
        self.bundleID = bundleID
        self.apnsID = apnsID
        self.notificationID = notificationID
        self.badge = badge
    }
}

/// One inbox row, as the push functions write it.
public struct NewNotification: Sendable {
    public let id: String
    public let userID: String
    public let title: String?
    public let body: String?
    /// The payload as sent (JSON text), its `soar_id` included.
    public let payload: String

    public init(id: String, userID: String, title: String?, body: String?, payload: String) {
        self.id = id
        self.userID = userID
        self.title = title
        self.body = body
        self.payload = payload
    }
}

/// A job waiting for its outcome.
public struct PushJob: Sendable, Equatable {
    public let id: Int64
    public let sendID: String
    public let userID: String?
    public let token: String
    public let environment: String?
    public let bundleID: String?
    public let apnsID: String
    public let notificationID: String?
    public let badge: Int?
    /// How many times it was claimed: above 1, an earlier worker may have sent it already.
    public let attempts: Int
    /// The send's locale variant it carries; nil: the send's payload.
    public var variant: String? = nil
}

/// A job's one final outcome.
public struct PushJobResult: Sendable {
    public let jobID: Int64
    public let delivered: Bool
    /// APNs' reason (or soar's, such as `DeliveryUnknown`) when not delivered.
    public let reason: String?
    /// The environment it was last sent to.
    public let environment: String?
    /// Whether the device's row was removed because APNs said the token is dead.
    public let removed: Bool

    public init(jobID: Int64, delivered: Bool, reason: String?, environment: String?, removed: Bool) {
        self.jobID = jobID
        self.delivered = delivered
        self.reason = reason
        self.environment = environment
        self.removed = removed
    }
}

/// What `GET /functions/v1/sends/<id>` reports.
public struct PushSendSummary: Sendable, Equatable {
    public let id: String
    public let createdAt: String
    public let finishedAt: String?
    public let total: Int
    public let pending: Int
    public let delivered: Int
    public let failed: Int
    public let removed: Int
    /// Failures by reason.
    public let reasons: [String: Int]
    /// Device rows removed (dead tokens), by Apple's reason.
    public let removedReasons: [String: Int]
    /// Devices the send did not go to, by why (`opted_out`: their user muted the send's kind).
    public let suppressed: [String: Int]
    /// Inbox rows of this send their owners opened.
    public let opens: Int
    /// Outcomes of jobs claimed again after a worker stopped: each may have reached its device twice.
    public let redelivered: Int
}

/// A send to go out later (send-push's `send_at`).
public struct PushSchedule: Sendable, Equatable {
    public let id: String
    /// The send-push body it runs, without `send_at`.
    public let request: String
    public let dueAt: String
    /// `scheduled`, `sending`, `sent` or `cancelled`.
    public let status: String
    public let createdAt: String

    public init(id: String, request: String, dueAt: String, status: String, createdAt: String) {
        self.id = id
        self.request = request
        self.dueAt = dueAt
        self.status = status
        self.createdAt = createdAt
    }
}

/// What a follow-up send (an update or a retraction) does to the inbox rows of the send it follows.
public enum InboxChange: Sendable, Equatable {
    /// Each row takes this title, body and payload (JSON without `soar_id`: each row's own id goes in).
    case update(title: String?, body: String?, payload: String)
    /// The rows are deleted.
    case remove
}

/// Suppressed counts share the reasons' table, under this prefix.
let suppressedPrefix = "suppressed:"
/// So do the rows removed by reason, under this one.
let removedPrefix = "removed:"

extension [String: Int] {
    /// Failure reasons, suppressed counts and rows removed by reason, apart.
    func splitByKind() -> (reasons: [String: Int], suppressed: [String: Int], removed: [String: Int]) {
        var reasons: [String: Int] = [:], suppressed: [String: Int] = [:], removed: [String: Int] = [:]
        for (key, count) in self {
            if key.hasPrefix(suppressedPrefix) {
                suppressed[String(key.dropFirst(suppressedPrefix.count))] = count
            } else if key.hasPrefix(removedPrefix) {
                removed[String(key.dropFirst(removedPrefix.count))] = count
            } else {
                reasons[key] = count
            }
        }
        return (reasons, suppressed, removed)
    }
}

/// The durable side of `send-push`: sends and their jobs, each job ending exactly once.
public protocol PushJobStore: Sendable {
    /// Stores a send to run at `dueAt` (a Postgres timestamp).
    func addSchedule(id: String, request: String, dueAt: String) throws(StoreError)
    /// Schedules by due time, those `scheduled` or `sending` only unless `all`.
    func schedules(all: Bool) throws(StoreError) -> [PushSchedule]
    func schedule(id: String) throws(StoreError) -> PushSchedule?
    /// Claims the next schedule due at `now` for this process (`sending`), or one another
    /// process claimed before `stale` and never finished; nil when none is due.
    func claimDueSchedule(now: String, stale: String) throws(StoreError) -> PushSchedule?
    /// Marks a schedule `sent`, or `cancelled` when `cancelled`.
    func finishSchedule(id: String, cancelled: Bool) throws(StoreError)
    /// Keeps a claimed schedule this process still runs from looking stale (a send paced by its
    /// `rate_limit` outlives the stale age).
    func touchSchedule(id: String) throws(StoreError)
    /// Cancels a schedule not yet claimed; false when it was (or never was).
    func cancelSchedule(id: String) throws(StoreError) -> Bool
    /// Stores a send that will have `total` jobs (they are added with ``appendToSend``) and the
    /// devices it leaves out, by why.
    /// With `schedules` (the sends quiet hours held back, for later) stored in the same transaction.
    func createSend(id: String, request: String, total: Int, suppressed: [String: Int], kind: String?, schedules: [PushSchedule]) throws(StoreError)
    /// The users sent at least `count` sends of `kind` since `since` (a Postgres timestamp).
    func usersReached(kind: String, since: String, atLeast count: Int) throws(StoreError) -> Set<String>
    /// Stores part of a send in one transaction: its users' inbox rows (each inbox then trimmed to
    /// `inboxSize`) and their jobs. With `badgeUnread`, each job's badge is its user's unread count.
    func appendToSend(id: String, jobs: [NewPushJob], notifications: [NewNotification], inboxSize: Int, badgeUnread: Bool) throws(StoreError)
    /// Stores the send `id` going again to every device the send `original` was stored for (each
    /// job with its inbox row's id and a new apns-id), and changes `original`'s inbox rows, in one
    /// transaction.
    ///
    /// - Returns: the jobs stored; nil when `original` is no send.
    func storeFollowUp(id: String, of original: String, request: String, inbox: InboxChange) throws(StoreError) -> Int?
    /// Stores a push template's definition (JSON text) under `name`, replacing one of that name.
    ///
    /// - Returns: whether one was replaced.
    func saveTemplate(name: String, definition: String) throws(StoreError) -> Bool
    func template(name: String) throws(StoreError) -> String?
    /// Every template's definition, by name.
    func templates() throws(StoreError) -> [String]
    /// - Returns: whether there was one.
    func deleteTemplate(name: String) throws(StoreError) -> Bool
    /// Ends the sends a stopped process left partly stored: their total becomes what was stored.
    func closePartlyStoredSends() throws(StoreError)
    /// Marks the send stored whole, its total what was stored (devices registered or removed
    /// while it was read).
    func finishStoring(id: String) throws(StoreError)
    /// A send a stopped run stored part of: the last user its jobs reach (each user's devices
    /// are stored together, so every user up to it is done), and the tokens of its jobs of no
    /// user. Nil when it was stored whole, or is no send, or (on a database several processes
    /// share) something was stored in the last minute: another process is storing it.
    func partlyStored(id: String) throws(StoreError) -> (lastUser: String?, userlessTokens: Set<String>)?
    /// Adds inbox rows outside a send (send-test-push), each inbox then trimmed to `inboxSize`.
    func addNotifications(_ notifications: [NewNotification], inboxSize: Int) throws(StoreError)
    /// Takes up to `limit` pending jobs that no live worker holds, oldest first, leasing them to
    /// `owner` for `leaseSeconds`: a worker that stops renewing loses them, and another takes them.
    func claimJobs(owner: String, limit: Int, leaseSeconds: Int) throws(StoreError) -> [PushJob]
    /// Extends the leases `owner` holds on pending jobs (its heartbeat).
    func renewLeases(owner: String, leaseSeconds: Int) throws(StoreError)
    /// Wakes a worker when another process stored jobs; nil when only this process stores them.
    func jobSignals() -> AsyncStream<Void>?
    /// The request a send was made with (its JSON text).
    func sendRequest(id: String) throws(StoreError) -> String?
    /// Records outcomes in one transaction; a job that already has one keeps it.
    func finishJobs(_ results: [PushJobResult]) throws(StoreError)
    func sendSummary(id: String) throws(StoreError) -> PushSendSummary?
    /// The ids of the newest `limit` sends, newest first.
    func recentSendIDs(limit: Int) throws(StoreError) -> [String]
    /// Jobs waiting for their outcome, over every send.
    func pendingJobCount() throws(StoreError) -> Int
    /// The device tokens that moved to `userID` from another user (the one-owner rule) in the last
    /// `seconds`, by the clock that timed the moves (the store's).
    func tokensMoved(to userID: String, within seconds: TimeInterval) throws(StoreError) -> Set<String>
}

extension PushJobStore {
    /// A send that leaves no device out.
    public func createSend(id: String, request: String, total: Int) throws(StoreError) {
        try createSend(id: id, request: request, total: total, suppressed: [:], kind: nil, schedules: [])
    }
}
