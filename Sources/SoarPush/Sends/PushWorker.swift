import Foundation
import SoarAPNs
import SoarCore
import SoarStore
import Synchronization

/// Delivers the stored jobs of `send-push` in the background: woken when a send is stored (here,
/// or in another process on the same database), once at start, and every few seconds for jobs a
/// dead worker's lease let go, it claims pending jobs in id order with a lease it renews while it
/// works, delivers them through ``DeviceDelivery`` in parts of `concurrency`, three parts out at
/// once, and records the outcomes in batches. A job's outcome is committed only after APNs
/// answered, so a job whose worker died in between is sent again (by a restart, or another
/// process) with the same apns-id.
final class PushWorker: Sendable {
    private let store: any PushJobStore
    private let delivery: DeviceDelivery
    private let defaultEnvironment: PushEnvironment
    private let concurrency: Int
    private let batch: Int
    private let wakeups: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>
    private let task = Locked<Task<Void, Never>?>(nil)
    /// This worker's name on its leases: its process id, then a random part (`4242-9f1c…`).
    private let owner = "\(ProcessInfo.processInfo.processIdentifier)-\(RandomUUID.lowercase())"
    /// How long a claim holds without a heartbeat: a dead worker's jobs wait this long at most.
    static let leaseSeconds = 10
    /// Jobs a claim takes at most.
    static let claimSize = 5000
    /// Parts of a claim out at once.
    static let partsOut = 3

    private let recorder: OutcomeRecorder
    /// Claims, one at a time, off the threads deliveries run on.
    private let claims = StoreLane("claims")
    /// The heartbeat that renews leases, on a lane of its own so that no claim delays it.
    private let leases = StoreLane("leases")

    init(store: any PushJobStore, delivery: DeviceDelivery, defaultEnvironment: PushEnvironment, concurrency: Int = 1000, batch: Int = 500) {
        self.store = store
        let recording = StoreLane("outcomes")
        recorder = OutcomeRecorder(
            commit: { results throws(StoreError) in try await recording.run { () throws(StoreError) in try store.finishJobs(results) } }, metrics: delivery.metrics)
        self.delivery = delivery
        self.defaultEnvironment = defaultEnvironment
        self.concurrency = concurrency
        self.batch = batch
        (stream, wakeups) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task.detached { [self] in await run() }
        }
        wake()
    }

    /// Says there is new work; wake-ups that come while it works are merged into one more pass.
    func wake() { wakeups.yield() }

    func stop() {
        wakeups.finish()
        task.withLock { $0?.cancel() }
    }

    private func run() async {
        let lease = Self.leaseSeconds
        // Other processes' stores, and the jobs of workers that died, wake this one too.
        let signals = store.jobSignals().map { signals in Task { [self] in for await _ in signals { wake() } } }
        let shared = signals != nil
        let rescue = Task { [self, store] in
            var rounds = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(lease / 2))
                rounds += 1
                // On a database other processes share, close now and then the sends whose
                // storing process died (one process owns a SQLite file: that ran at its start).
                if shared && rounds % 12 == 0 { try? store.closePartlyStoredSends() }
                wake()
            }
        }
        defer {
            signals?.cancel()
            rescue.cancel()
        }
        for await _ in stream {
            // Jobs are claimed `claimSize` at a time and go out in parts of `concurrency`,
            // `partsOut` parts at once: whichever part ends first makes room for the next, so the
            // connections never drain (two big batches side by side ended together), and the next
            // claim is made while the last part of the one before goes out. Every job claimed is
            // handed to delivery; a stopped worker makes no new claim. A part's outcomes are
            // committed beside the next parts; the pass ends when all are, so the one heartbeat
            // (leases are renewed by owner) covers every job it holds.
            let beating = leases.repeating(every: .milliseconds(lease * 1000 / 3)) { [store, owner] in
                try? store.renewLeases(owner: owner, leaseSeconds: lease)
            }
            let claim: @Sendable () async -> [PushJob]? = { [claims, store, owner] in
                try? await claims.run { () throws(StoreError) in
                    try store.claimJobs(owner: owner, limit: Self.claimSize, leaseSeconds: lease)
                }
            }
            var recordings: [Task<Void, Never>] = []
            await withTaskGroup(of: [Task<Void, Never>].self) { parts in
                var out = 0
                var next: Task<[PushJob]?, Never>? = Task { await claim() }
                while let jobs = await next?.value, !jobs.isEmpty {
                    next = nil
                    var claimed = jobs[...]
                    while !claimed.isEmpty {
                        let part = Array(claimed.prefix(concurrency))
                        claimed = claimed.dropFirst(part.count)
                        if claimed.isEmpty && !Task.isCancelled { next = Task { await claim() } }
                        parts.addTask { [self] in await deliver(part) }
                        out += 1
                        if out == Self.partsOut, let ended = await parts.next() {
                            recordings += ended
                            out -= 1
                        }
                    }
                }
                for await ended in parts { recordings += ended }
            }
            for recording in recordings { await recording.value }
            beating.stop()
        }
    }

    /// A send as the worker uses it: its request and the notification every job starts from, one
    /// per locale variant.
    private struct Prepared: Sendable {
        struct Variant: Sendable {
            let notification: APNsNotification
            /// The payload's JSON, for a `soar_id` in front of it.
            let splice: Inbox.IDSplice
        }

        let request: SendPushRequest
        let variants: [String?: Variant]

        init(request: SendPushRequest) {
            self.request = request
            variants = ([nil] + request.localizedAlerts.keys.map(Optional.some)).reduce(into: [:]) { variants, key in
                let notification = request.notification(variant: key)
                variants[key] = Variant(notification: notification, splice: Inbox.IDSplice(String(decoding: notification.encodedPayload, as: UTF8.self)))
            }
        }

        func variant(_ key: String?) -> Variant { variants[key] ?? variants[nil]! }
    }

    /// Sends `jobs`; returns once APNs answered each, with the tasks committing their outcomes.
    private func deliver(_ jobs: [PushJob]) async -> [Task<Void, Never>] {
        var sends: [String: Prepared?] = [:]
        var unreadable: Set<String> = []
        for send in Set(jobs.map(\.sendID)) {
            let text: String?
            do { text = try store.sendRequest(id: send) } catch {
                // The store failed, not the send: its jobs stay pending, claimed again later.
                unreadable.insert(send)
                continue
            }
            let request = text.flatMap { text in
                (try? JSONValue.read(Data(text.utf8))).flatMap { try? SendPushRequest(json: $0) }
            }
            sends[send] = request.map(Prepared.init)
        }
        // Jobs whose send cannot be read fail at once; the rest go out in one bulk pass per request.
        var results: [PushJobResult] = []
        var items: [(notification: APNsNotification, device: Device)] = []
        var itemJobs: [PushJob] = []
        var environments: [PushEnvironment] = []
        for job in jobs where !unreadable.contains(job.sendID) {
            guard let send = sends[job.sendID] ?? nil else {
                results.append(PushJobResult(jobID: job.id, delivered: false, reason: "InvalidRequest", environment: nil, removed: false))
                continue
            }
            items.append((notification(job, send), device(job)))
            itemJobs.append(job)
            environments.append(send.request.environment ?? defaultEnvironment)
        }
        var recordings: [Task<Void, Never>] = [record(results)]
        let collected = Locked<[PushJobResult]>([])
        let batch = self.batch
        let finished = Locked<[Task<Void, Never>]>([])
        // Items of one request share its environment; a mixed batch goes one request at a time.
        var start = 0
        while start < items.count {
            var end = start
            while end < items.count && environments[end] == environments[start] { end += 1 }
            // Nearly always one request's jobs: its items go as they are, not copied.
            let whole = start == 0 && end == items.count
            let slice = whole ? items : Array(items[start..<end])
            let sliceJobs = whole ? itemJobs : Array(itemJobs[start..<end])
            await delivery.deliver(slice, requested: environments[start], maxInFlight: concurrency) { [self] index, outcome in
                let result = PushJobResult(
                    jobID: sliceJobs[index].id, delivered: outcome.outcome.delivered, reason: outcome.outcome.reason,
                    environment: outcome.environment.rawValue, removed: outcome.removed)
                // Outcomes are written beside the sending, not in its way.
                let full: [PushJobResult]? = collected.withLock { list in
                    list.append(result)
                    guard list.count >= batch else { return nil }
                    defer { list.removeAll(keepingCapacity: true) }
                    return list
                }
                if let full { finished.withLock { $0.append(record(full)) } }
            }
            start = end
        }
        recordings.append(record(collected.withLock { $0 }))
        return recordings + finished.withLock { $0 }
    }

    /// The job's notification: the send's, with this job's apns-id, inbox id and badge.
    private func notification(_ job: PushJob, _ send: Prepared) -> APNsNotification {
        let variant = send.variant(job.variant)
        var notification = variant.notification
        notification.apnsID = RandomUUID.parse(job.apnsID)
        if let badge = job.badge {
            var payload = notification.payload
            if let id = job.notificationID { payload.custom[Payload.inboxIDKey] = .string(id) }
            payload.aps.badge = badge
            notification.payload = payload
        } else if let id = job.notificationID {
            var payload = notification.payload
            payload.custom[Payload.inboxIDKey] = .string(id)
            notification.setPayload(payload, encoded: variant.splice.json(withID: id))
        }
        return notification
    }

    private func device(_ job: PushJob) -> Device {
        Device(
            userID: job.userID ?? "", token: job.token, environment: job.environment.flatMap(PushEnvironment.init(named:)), bundleID: job.bundleID,
            updatedAt: "")
    }

    /// Commits outcomes on a task of their own, trying again while the store fails; if it never
    /// comes back, they stay pending and go out again on a later pass.
    private func record(_ results: [PushJobResult]) -> Task<Void, Never> {
        Task.detached { [recorder] in await recorder.record(results) }
    }
}
