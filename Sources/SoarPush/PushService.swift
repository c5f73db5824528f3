import Foundation
import SoarAPNs
import SoarCore
import SoarStore

/// Push in the backend: device registration, and sending to a user's devices through long-lived
/// APNs clients with the server's Apple credentials. Without credentials every send is a safe
/// no-op that says what to configure.
public final class PushService: Sendable {
    public let settings: PushSettings.Loaded
    private let clients: APNsClients?
    private let rows: DeviceRows
    private let registration: DeviceRegistration
    let jobs: any PushJobStore
    let webhookStore: any WebhookStore
    /// Delivers webhook messages (always running: opens and suppressions need no APNs key).
    private let webhooks: WebhookDispatcher
    private let inboxSize: Int
    /// Kinds sent even to users who muted them (security alerts).
    private let criticalKinds: Set<String>
    /// Reads a segment (filters of the data API's syntax) as a condition on `device_tokens`.
    public typealias SegmentReader = @Sendable (String) throws(PushError) -> RowQuery.Condition?
    private let segments: SegmentReader?
    /// Runs scheduled sends when they fall due (with APNs configured).
    private let scheduler: Scheduler?
    let now: @Sendable () -> Date
    /// The zone of devices that name none, for `local_time`.
    private let fallbackTimeZone: TimeZone
    /// Sends of a kind a user may get in 24 hours at most (`SOAR_PUSH_FREQUENCY_CAPS`).
    private let frequencyCaps: [String: Int]
    /// A claimed schedule no process finished in this long is claimed again (its send's id keeps
    /// a second run from sending twice).
    public static let staleClaim: TimeInterval = 60
    let worker: PushWorker?
    private let metrics = PushMetrics()
    /// Set when the server stops: paced sends stop storing (their schedules resume them later).
    private let stopping = Locked(false)
    /// send-test-push's inbox rows, off the threads deliveries run on.
    private let inboxWrites = StoreLane("inbox")
    /// A device whose token moved from another user this recently gets send-test-push's own
    /// text only: whoever took its token over cannot choose what that phone shows or opens.
    public static let takeoverQuarantine: TimeInterval = 600

    /// Starts the background worker at once when APNs is configured, so sends a stopped process
    /// left unfinished go out.
    /// - Parameters:
    ///   - inboxSize: notifications kept per user in the inbox.
    ///   - criticalKinds: kinds no preference mutes.
    ///   - segments: how a segment's filters are read (the data API's parser); nil: no segments.
    public init(
        settings: PushSettings.Loaded, store: any DataStore & PushJobStore & WebhookStore, inboxSize: Int = 500, criticalKinds: Set<String> = ["security"],
        segments: SegmentReader? = nil, fallbackTimeZone: TimeZone = TimeZone(identifier: "UTC")!, frequencyCaps: [String: Int] = [:],
        webhookTimeout: Duration = .seconds(10), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.settings = settings
        self.frequencyCaps = frequencyCaps
        self.now = now
        self.fallbackTimeZone = fallbackTimeZone
        self.criticalKinds = criticalKinds
        self.segments = segments
        rows = DeviceRows(store: store)
        registration = DeviceRegistration(store: store)
        jobs = store
        webhookStore = store
        var webhookSettings = WebhookDispatcher.Settings()
        webhookSettings.timeout = webhookTimeout
        webhooks = WebhookDispatcher(store: store, settings: webhookSettings, now: now)
        webhooks.start()
        self.inboxSize = inboxSize
        if case .configured(let configured) = settings {
            let clients = APNsClients(settings: configured)
            self.clients = clients
            worker = PushWorker(
                store: store, delivery: DeviceDelivery(clients: clients, rows: rows, metrics: metrics), defaultEnvironment: configured.defaultEnvironment)
            try? store.closePartlyStoredSends()
            worker?.start()
        } else {
            clients = nil
            worker = nil
        }
        let box = WeakService()
        scheduler = worker == nil ? nil : Scheduler { box.service?.runDueSchedules() }
        box.service = self
    }

    /// Sends the scheduled sends that fell due, each once: claimed (one process at a time), stored
    /// as the send of the schedule's id, then marked sent. A run that stops half way is claimed
    /// again after ``staleClaim`` and finds its send stored: it is not sent twice.
    func runDueSchedules() {
        while true {
            let time = now()
            guard let schedule = try? jobs.claimDueSchedule(now: Timestamp.postgres(time), stale: Timestamp.postgres(time - Self.staleClaim)) else { return }
            let body = (try? JSONValue.read(Data(schedule.request.utf8))) ?? .object([:])
            if body.objectValue?["rate_limit"].map({ $0 != .null }) ?? false {
                // A paced send takes as long as its rate says: on a thread of its own, so the
                // other schedules keep their times.
                let thread = Thread { [self] in run(schedule, body: body, time: time) }
                thread.name = "soar-paced-send"
                thread.start()
                continue
            }
            run(schedule, body: body, time: time)
        }
    }

    /// Runs one claimed schedule: its send stored (or the rest of it, after a stopped run) and
    /// the schedule marked sent, or cancelled when it is no longer a send that can be made.
    private func run(_ schedule: PushSchedule, body: JSONValue, time: Date) {
        do throws(PushError) {
            do throws(PushError) {
                let request = try read(body)
                // Due after it expires (a process was down meanwhile): APNs would drop it too.
                if let expiration = request.expiration, expiration.timeIntervalSince1970 > 0, expiration < time {
                    try? jobs.finishSchedule(id: schedule.id, cancelled: true)
                    return
                }
                do throws(PushError) {
                    _ = try store(request, body: body, id: schedule.id, schedule: true)
                } catch where error.code == "send_exists" {
                    // An earlier run stored it, or part of it before it stopped: the rest is stored now.
                    _ = try store(request, body: body, id: schedule.id, resuming: true, schedule: true)
                }
                try? jobs.finishSchedule(id: schedule.id, cancelled: false)
            } catch where error.status < 500 {
                // What was valid when scheduled no longer is (the topic lost its followers, a
                // migration dropped a column): it is not sent, and says so.
                try? jobs.finishSchedule(id: schedule.id, cancelled: true)
            }
        } catch {
            // The store failed, or the server stopped a paced send: left claimed, to be claimed
            // again once stale.
        }
    }

    /// One line for the start-up banner: where notifications go, or what is missing. No secrets.
    public var summary: String {
        switch settings {
        case .configured(let settings):
            let places = PushEnvironment.allCases.map { "\($0.rawValue) \(settings.destinations[$0]?.baseURL ?? "?")" }
            return "APNs \(places.joined(separator: ", ")); topic \(settings.bundleID)"
        case .notConfigured(let missing):
            return "APNs not configured (send-test-push answers 503): set \(missing.joined(separator: ", "))"
        }
    }

    /// `send-test-push`: the notification to each of the user's own iOS devices, rows of dead
    /// tokens removed, one result per device.
    ///
    /// - Throws: ``PushError`` 400 for a bad body, 503 when APNs is not configured or the store fails.
    public func sendTestPush(userID: String, body: JSONValue) async throws(PushError) -> JSONValue {
        let request = try TestPushRequest(json: body)
        guard let clients else {
            if case .notConfigured(let missing) = settings { throw .notConfigured(missing) }
            throw .notConfigured([])
        }
        let devices: [Device]
        let unmuted = PushKind.unmuted(request.kind, critical: criticalKinds, store: rows.store)
        do { devices = try rows.meeting(unmuted).iOSDevices(of: userID) } catch { throw PushError(503, "store_unavailable", error.message) }
        if devices.isEmpty, unmuted != nil, (try? rows.iOSDevices(of: userID).isEmpty) == false {
            return .object([
                "sent": 0, "delivered": 0, "failed": 0, "removed": 0, "results": .array([]), "suppressed": ["opted_out": .int((try? rows.iOSDevices(of: userID).count) ?? 0)],
                "message": .string("Nothing was sent: you turned off \(request.kind ?? "") notifications."),
            ])
        }
        guard !devices.isEmpty else {
            return .object([
                "sent": 0, "delivered": 0, "failed": 0, "removed": 0, "results": .array([]),
                "message": "No iOS device is registered for this user: the app registers its token in device_tokens once notifications are allowed.",
            ])
        }
        let moved: Set<String>
        do { moved = try jobs.tokensMoved(to: userID, within: Self.takeoverQuarantine) } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
        var notifications: [Bool: APNsNotification] = [:]
        for quarantined in Set(devices.map { moved.contains($0.token) }) {
            let text = quarantined ? TestPushRequest() : request
            var custom: [String: JSONValue] = [:]
            if let deeplink = text.deeplink { custom["deeplink"] = .string(deeplink) }
            if let kind = request.kind { custom["kind"] = .string(kind) }
            var payload = Payload.alert(title: text.title, body: text.body, custom: custom)
            if let image = text.imageURL { PushImage.attach(image, to: &payload) }
            try Inbox.checkSendable(APNsNotification(token: "", payload: payload), badge: false)
            let row = Inbox.rows(payload, for: [userID])
            do {
                try await inboxWrites.run { [jobs, inboxSize] () throws(StoreError) in try jobs.addNotifications(row, inboxSize: inboxSize) }
            } catch {
                throw PushError(503, "store_unavailable", error.message)
            }
            payload.custom[Payload.inboxIDKey] = .string(row[0].id)
            notifications[quarantined] = APNsNotification(token: "", payload: payload)
        }
        let delivery = DeviceDelivery(clients: clients, rows: rows, metrics: metrics)
        let environment = request.environment ?? clients.settings.defaultEnvironment
        let results = await withTaskGroup(of: (Int, DeviceResult).self) { group in
            for (index, device) in devices.enumerated() {
                let notification = notifications[moved.contains(device.token)]!
                group.addTask { (index, await delivery.deliver(notification, to: device, requested: environment)) }
            }
            var results: [(Int, DeviceResult)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let delivered = results.filter(\.outcome.delivered).count
        var answer: [String: JSONValue] = [
            "sent": .int(results.count), "delivered": .int(delivered), "failed": .int(results.count - delivered),
            "removed": .int(results.filter(\.removed).count), "results": .array(results.map(\.json)),
        ]
        let quarantined = devices.filter { moved.contains($0.token) }.count
        if quarantined > 0 {
            answer["default_text"] = .int(quarantined)
            answer["message"] = .string(
                "\(quarantined) of the devices came from another user's account in the last \(Int(Self.takeoverQuarantine / 60)) minutes: they got the default test text, without your title, body or link.")
        }
        return .object(answer)
    }

    /// `send-push`: stores the send and one job per device, wakes the worker and returns at once
    /// with the send's id; delivery goes on in the background, from the first chunk stored.
    ///
    /// - Throws: ``PushError`` 400 for a bad body, 503 when APNs is not configured or the store fails.
    public func sendPush(body: JSONValue) throws(PushError) -> JSONValue {
        let body = try expandingTemplate(body)
        let request = try read(body)
        if request.dryRun { return try count(request) }
        guard worker != nil else {
            if case .notConfigured(let missing) = settings { throw .notConfigured(missing) }
            throw .notConfigured([])
        }
        if let local = request.localTime { return try scheduleLocally(request, body: body, hour: local.hour, minute: local.minute) }
        if let rate = request.rateLimit, request.sendAt.map({ $0 <= now() }) ?? true {
            // Paced: stored by the scheduler at its rate, so a restart (or another process)
            // takes up what a stopped one left; the schedule says how far it is.
            var paced = body.objectValue ?? [:]
            paced["send_at"] = nil
            let id = RandomUUID.lowercase()
            do { try jobs.addSchedule(id: id, request: JSONValue.object(paced).jsonText, dueAt: Timestamp.postgres(now())) } catch {
                throw PushError(503, "store_unavailable", error.message)
            }
            scheduler?.wake()
            return ["send_id": .string(id), "schedule_id": .string(id), "rate_limit": .int(rate), "status": .string("/functions/v1/schedules/\(id)")]
        }
        if let sendAt = request.sendAt, sendAt > now() {
            // Checked now as a send of now would be; stored without its time, to run as one then.
            var later = body.objectValue ?? [:]
            later["send_at"] = nil
            let id = RandomUUID.lowercase()
            do { try jobs.addSchedule(id: id, request: JSONValue.object(later).jsonText, dueAt: Timestamp.postgres(sendAt)) } catch {
                throw PushError(503, "store_unavailable", error.message)
            }
            scheduler?.wake()
            return ["schedule_id": .string(id), "send_at": .string(Timestamp.format(sendAt)), "status": .string("/functions/v1/schedules/\(id)")]
        }
        return try store(request, body: body, id: RandomUUID.lowercase())
    }

    /// `local_time`: one scheduled send per time zone the audience's devices name, each at the
    /// next HH:MM there (devices without a zone, or with a name that is none, at the server's
    /// fallback zone's), each limited to its zone's devices.
    private func scheduleLocally(_ request: SendPushRequest, body: JSONValue, hour: Int, minute: Int) throws(PushError) -> JSONValue {
        let zones: Set<String?>
        let audience = [SendDevices.condition(request.audience, tables: rows.store.tables), request.restriction].compactMap { $0 }
        do { zones = try rows.timeZones(where: audience.isEmpty ? nil : .all(audience)) } catch {
            if error.code == "42703" { throw .invalid("local_time needs device_tokens.time_zone: \(error.message)") }
            throw PushError(503, "store_unavailable", error.message)
        }
        let time = now()
        var schedules: [JSONValue] = []
        for group in LocalTime.groups(zones, fallback: fallbackTimeZone) {
            var later = body.objectValue ?? [:]
            later["local_time"] = nil
            // Names a request could not carry (empty, too long: any device's row may say anything)
            // are left out rather than spoiling the whole group's send.
            let names = group.names.filter { $0.map { !$0.isEmpty && $0.count <= 64 } ?? true }.prefix(1000)
            guard !names.isEmpty else { continue }
            later["time_zones"] = .array(names.map { $0.map(JSONValue.string) ?? .null })
            let due = LocalTime.next(hour: hour, minute: minute, in: group.zone, after: time)
            let id = RandomUUID.lowercase()
            do { try jobs.addSchedule(id: id, request: JSONValue.object(later).jsonText, dueAt: Timestamp.postgres(due)) } catch {
                throw PushError(503, "store_unavailable", error.message)
            }
            schedules.append([
                "schedule_id": .string(id), "time_zone": .string(group.zone.identifier), "send_at": .string(Timestamp.format(due)),
                // The names devices gave (those with none, or none that is a zone, share the fallback's).
                "time_zones": .array(group.names.map { $0.map(JSONValue.string) ?? .null }),
            ])
        }
        return ["local_time": .string(String(format: "%02d:%02d", hour, minute)), "schedules": .array(schedules)]
    }

    /// A send-push body read and checked, its segment's filters read too.
    func read(_ body: JSONValue) throws(PushError) -> SendPushRequest {
        var request = try SendPushRequest(json: body)
        if case .segment(let filter, _) = request.audience {
            guard let segments else { throw .invalid("this server reads no segments") }
            request.audience = .segment(filter, try segments(filter))
        }
        return request
    }

    /// Stores the send `id` and its jobs, a chunk at a time, each delivered while the next ones are stored.
    ///
    /// - Throws: ``PushError`` 404 for a topic nobody follows, 503 when the store fails, and the
    ///   store's 23505 (as a 409 `send_exists`) when a send of that id was stored already.
    ///
    /// With `resuming`, the send of that id is stored already, perhaps partly: only what a
    /// stopped run left out is stored.
    ///
    /// With `rate_limit`, the chunks (a tenth of a second's devices each) are stored as the rate
    /// allows by the server's clock, and `schedule` (the schedule of the same id that runs it) is
    /// kept from going stale meanwhile.
    private func store(_ request: SendPushRequest, body: JSONValue, id: String, resuming: Bool = false, schedule: Bool = false) throws(PushError) -> JSONValue {
        guard let worker else { throw .notConfigured([]) }
        var partial: (lastUser: String?, userlessTokens: Set<String>)?
        if resuming {
            do { partial = try jobs.partlyStored(id: id) } catch { throw PushError(503, "store_unavailable", error.message) }
            guard partial != nil else { return ["send_id": .string(id), "devices": 0, "status": .string("/functions/v1/sends/\(id)")] }
        }
        if case .topic(let topic) = request.audience {
            // A topic nobody follows is likely a typo: said, not sent to no one in silence.
            let followed: Bool
            do { followed = try PushTopic.followed(topic, store: rows.store) } catch { throw PushError(503, "store_unavailable", error.message) }
            guard followed else {
                throw PushError(404, "unknown_topic", "no user or device follows the topic \"\(topic)\" (push_topic_subscriptions, push_topic_device_subscriptions)")
            }
        }
        // An alert carries its send's id as its collapse id unless it names one: an update of the
        // send replaces it on the device (on iOS, the collapse id is the notification's identifier).
        var stored = 0, text = body
        if request.collapseID == nil, request.pushType == .alert, var fields = body.objectValue {
            fields["collapse_id"] = .string(id)
            text = .object(fields)
        }
        let (held, capped) = try waiting(request)
        let uncapped = Self.excluding(capped), awake = Self.excluding(held.keys)
        // What quiet hours hold back is stored with the send, in one transaction: a run that
        // stops cannot leave a send without its held part, nor a held part twice.
        let holding = holds(held, request: request, body: body)
        do throws(StoreError) {
            // Stored a chunk at a time, each delivered while the next ones are stored, at a lower
            // priority than the deliveries and the other requests.
            stored = try StoreLane("send", .lowPriority).wait { [rows, jobs, inboxSize, criticalKinds, now, stopping] () throws(StoreError) -> Int in
                // A kind some users muted, and quiet hours: those devices are left out, and counted.
                let unmuted = PushKind.unmuted(request.kind, critical: criticalKinds, store: rows.store)
                let zoned = rows.meeting(request.restriction)
                var devices = try SendDevices(request.audience, rows: zoned.meeting(unmuted).meeting(uncapped).meeting(awake))
                if let partial {
                    devices.skipStored(lastUser: partial.lastUser, userlessTokens: partial.userlessTokens)
                } else {
                    let plain = unmuted == nil && uncapped == nil && awake == nil
                    let reachable = plain ? devices.expected : try SendDevices.count(request.audience, rows: zoned.meeting(unmuted))
                    let underCap = uncapped == nil ? reachable : try SendDevices.count(request.audience, rows: zoned.meeting(unmuted).meeting(uncapped))
                    let optedOut = unmuted == nil ? 0 : try SendDevices.count(request.audience, rows: zoned) - reachable
                    try jobs.createSend(
                        id: id, request: text.jsonText, total: devices.expected,
                        suppressed: ["opted_out": optedOut, "frequency_cap": reachable - underCap, "quiet_hours": underCap - devices.expected], kind: request.kind,
                        schedules: holding.schedules)
                }
                var count = 0
                let started = now()
                let pace = request.rateLimit.map { max(1, $0 / 10) }
                while let chunk = try devices.nextChunk(atMost: pace).map({ SendChunk($0, request) }) {
                    if let rate = request.rateLimit {
                        // The chunk goes when `count` devices at `rate` a second have had their time.
                        let due = started + Double(count) / Double(rate)
                        while now() < due {
                            if stopping.withLock({ $0 }) { throw StoreError.unavailable("the server stopped a paced send; it goes on after a restart") }
                            Thread.sleep(forTimeInterval: min(0.05, max(0.001, due.timeIntervalSince(now()))))
                        }
                        if schedule { try jobs.touchSchedule(id: id) }
                    }
                    try jobs.appendToSend(
                        id: id, jobs: chunk.jobs, notifications: chunk.notifications, inboxSize: inboxSize, badgeUnread: request.badgeUnread)
                    worker.wake()
                    count += chunk.jobs.count
                }
                try jobs.finishStoring(id: id)
                return count
            }
        } catch where error.code == "23505" {
            throw PushError(409, "send_exists", "a send with the id \(id) was stored already")
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
        var answer: [String: JSONValue] = ["send_id": .string(id), "devices": .int(stored), "status": .string("/functions/v1/sends/\(id)")]
        if !held.isEmpty, partial == nil { answer["held"] = holding.answer }
        return .object(answer)
    }

    /// The sends for what quiet hours hold back, to store with the send: one per window's end,
    /// limited to those users, unless the notification expires first (then it is dropped); and
    /// how the answer lists them.
    private func holds(_ held: [String: Date], request: SendPushRequest, body: JSONValue) -> (schedules: [PushSchedule], answer: JSONValue) {
        var schedules: [PushSchedule] = []
        var listed: [JSONValue] = []
        var expired = 0
        for (release, users) in Dictionary(grouping: held.keys, by: { held[$0]! }).sorted(by: { $0.key < $1.key }) {
            if let expiration = request.expiration, expiration <= release {
                expired += users.count
                continue
            }
            var later = body.objectValue ?? [:]
            for key in ["send_at", "local_time", "dry_run"] { later[key] = nil }
            let within = request.withinUsers.map { Set($0).intersection(users) } ?? Set(users)
            later["within_users"] = .array(within.sorted().map(JSONValue.string))
            let id = RandomUUID.lowercase()
            schedules.append(PushSchedule(id: id, request: JSONValue.object(later).jsonText, dueAt: Timestamp.postgres(release), status: "scheduled", createdAt: ""))
            listed.append(["schedule_id": .string(id), "send_at": .string(Timestamp.format(release)), "users": .int(within.count)])
        }
        return (schedules, ["quiet_hours": .array(listed), "expired_users": .int(expired)])
    }

    /// `"dry_run": true`: how many devices the send would reach, and leave out, now.
    private func count(_ request: SendPushRequest) throws(PushError) -> JSONValue {
        let unmuted = PushKind.unmuted(request.kind, critical: criticalKinds, store: rows.store)
        let zoned = rows.meeting(request.restriction)
        let (held, capped) = try waiting(request)
        do {
            // Each count narrows the one before; one that leaves nothing more out is not made again.
            let all = try SendDevices.count(request.audience, rows: zoned)
            let unmutedCount = unmuted == nil ? all : try SendDevices.count(request.audience, rows: zoned.meeting(unmuted))
            let underCap = capped.isEmpty ? unmutedCount : try SendDevices.count(request.audience, rows: zoned.meeting(unmuted).meeting(Self.excluding(capped)))
            let reached = held.isEmpty ? underCap
                : try SendDevices.count(request.audience, rows: zoned.meeting(unmuted).meeting(Self.excluding(capped)).meeting(Self.excluding(held.keys)))
            return [
                "dry_run": true, "devices": .int(reached),
                "suppressed": ["opted_out": .int(all - unmutedCount), "frequency_cap": .int(unmutedCount - underCap), "quiet_hours": .int(underCap - reached)],
            ]
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    /// Who a send leaves out for now: users who had their kind's fill in the last day (capped),
    /// and users in their quiet hours, each with their window's end (held); a critical kind, neither.
    private func waiting(_ request: SendPushRequest) throws(PushError) -> (held: [String: Date], capped: Set<String>) {
        guard !(request.kind.map(criticalKinds.contains) ?? false) else { return ([:], []) }
        var users: [String]?
        if case .users(let ids) = request.audience { users = ids }
        do {
            var capped: Set<String> = []
            if let kind = request.kind, let cap = frequencyCaps[kind] {
                capped = try jobs.usersReached(kind: kind, since: Timestamp.postgres(now() - 86_400), atLeast: cap)
            }
            return (try QuietHours.held(in: rows.store, users: users, at: now()).filter { !capped.contains($0.key) }, capped)
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    /// Devices not of these users (a device of no user is none of theirs: NOT IN alone would drop it).
    private static func excluding(_ users: some Collection<String>) -> RowQuery.Condition? {
        guard !users.isEmpty else { return nil }
        return .any([.not(.compare(column: "user_id", op: .in, operand: .list(users.sorted().map(SQLValue.text)))), .compare(column: "user_id", op: .is, operand: .null)])
    }

    /// Push's lines for `/metrics`.
    public var metricsText: String { metrics.text(pending: try? jobs.pendingJobCount()) }

    /// Registers the caller's device from `{token, platform, environment, bundle_id}`; returns its row.
    public func register(userID: String, body: JSONValue) throws(PushError) -> [String: JSONValue] {
        try registration.register(body, userID: userID)
    }

    /// Removes the caller's device; returns how many rows went (0 or 1).
    public func unregister(userID: String, token: String) throws(PushError) -> Int {
        try registration.unregister(token: token, userID: userID)
    }

    /// Stops the worker (unfinished jobs stay pending for the next start) and closes the connections.
    public func shutdown() {
        stopping.withLock { $0 = true }
        scheduler?.stop()
        worker?.stop()
        webhooks.stop()
        clients?.shutdown()
    }
}

/// Lets the scheduler reach its service without keeping it alive.
private final class WeakService: @unchecked Sendable {
    weak var service: PushService?
}
