import Foundation
import SoarAPNs
import SoarCore
import SoarStore
import Synchronization

/// Delivers the stored jobs of `send-push` in the background: woken when a send is stored (and
/// once at start, for jobs a stopped process left pending), it takes pending jobs in id order,
/// delivers each through ``DeviceDelivery`` with up to `concurrency` in flight, and records the
/// outcomes in batches. A job's outcome is committed only after APNs answered, so a process killed
/// in between sends that job again after its restart, with the same apns-id.
final class PushWorker: Sendable {
    private let store: any PushJobStore
    private let delivery: DeviceDelivery
    private let defaultEnvironment: PushEnvironment
    private let concurrency: Int
    private let batch: Int
    private let wakeups: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(store: any PushJobStore, delivery: DeviceDelivery, defaultEnvironment: PushEnvironment, concurrency: Int = 1000, batch: Int = 500) {
        self.store = store
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
        for await _ in stream {
            var cursor: Int64 = 0
            while !Task.isCancelled {
                guard let jobs = try? store.pendingJobs(after: cursor, limit: 5000), let last = jobs.last else { break }
                cursor = last.id
                await deliver(jobs)
            }
        }
    }

    /// A send as the worker uses it: its request and the notification every job starts from.
    private struct Prepared: Sendable {
        let request: SendPushRequest
        let notification: APNsNotification
        /// The payload's JSON after its opening brace, for splicing a `soar_id` in front.
        let rest: Data
    }

    private func deliver(_ jobs: [PushJob]) async {
        var sends: [String: Prepared?] = [:]
        for send in Set(jobs.map(\.sendID)) {
            let request = (try? store.sendRequest(id: send)).flatMap { $0 }.flatMap { text in
                (try? JSONValue.read(Data(text.utf8))).flatMap { try? SendPushRequest(json: $0) }
            }
            sends[send] = request.map { request in
                let notification = request.notification
                return Prepared(request: request, notification: notification, rest: notification.encodedPayload.dropFirst())
            }
        }
        var pending: [PushJobResult] = []
        var recordings: [Task<Void, Never>] = []
        await withTaskGroup(of: PushJobResult.self) { group in
            var next = 0
            func add() {
                let job = jobs[next]
                next += 1
                let send = sends[job.sendID] ?? nil
                group.addTask { [self] in await result(job, send) }
            }
            while next < min(concurrency, jobs.count) { add() }
            for await result in group {
                pending.append(result)
                // Outcomes are written beside the sending, not in its way.
                if pending.count >= batch { recordings.append(record(pending)); pending.removeAll(keepingCapacity: true) }
                if next < jobs.count && !Task.isCancelled { add() }
            }
        }
        recordings.append(record(pending))
        for recording in recordings { await recording.value }
    }

    private func result(_ job: PushJob, _ send: Prepared?) async -> PushJobResult {
        guard let send else {
            return PushJobResult(jobID: job.id, delivered: false, reason: "InvalidRequest", environment: nil, removed: false)
        }
        let request = send.request
        var notification = send.notification
        notification.apnsID = UUID(uuidString: job.apnsID)
        if let badge = job.badge {
            var payload = notification.payload
            if let id = job.notificationID { payload.custom[Inbox.idKey] = .string(id) }
            payload.aps.badge = badge
            notification.payload = payload
        } else if let id = job.notificationID {
            var payload = notification.payload
            payload.custom[Inbox.idKey] = .string(id)
            let encoded = Data("{\"\(Inbox.idKey)\":\"\(id)\"".utf8) + (send.rest.first == UInt8(ascii: "}") ? Data() : Data(",".utf8)) + send.rest
            notification.setPayload(payload, encoded: encoded)
        }
        let device = Device(
            userID: job.userID ?? "", token: job.token, environment: job.environment.flatMap(PushEnvironment.init(named:)), bundleID: job.bundleID,
            updatedAt: "")
        let outcome = await delivery.deliver(notification, to: device, requested: request.environment ?? defaultEnvironment)
        return PushJobResult(
            jobID: job.id, delivered: outcome.outcome.delivered, reason: outcome.outcome.reason, environment: outcome.environment.rawValue,
            removed: outcome.removed)
    }

    /// Commits outcomes on a task of their own; on a store failure they stay pending and go out
    /// again on the next pass.
    private func record(_ results: [PushJobResult]) -> Task<Void, Never> {
        Task.detached { [store] in try? store.finishJobs(results) }
    }
}
