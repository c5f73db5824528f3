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

    private func deliver(_ jobs: [PushJob]) async {
        var requests: [String: SendPushRequest?] = [:]
        for send in Set(jobs.map(\.sendID)) {
            requests[send] = (try? store.sendRequest(id: send)).flatMap { $0 }.flatMap { text in
                (try? JSONValue.read(Data(text.utf8))).flatMap { try? SendPushRequest(json: $0) }
            }
        }
        var pending: [PushJobResult] = []
        await withTaskGroup(of: PushJobResult.self) { group in
            var next = 0
            func add() {
                let job = jobs[next]
                next += 1
                let request = requests[job.sendID] ?? nil
                group.addTask { [self] in await result(job, request) }
            }
            while next < min(concurrency, jobs.count) { add() }
            for await result in group {
                pending.append(result)
                if pending.count >= batch { record(&pending) }
                if next < jobs.count && !Task.isCancelled { add() }
            }
        }
        record(&pending)
    }

    private func result(_ job: PushJob, _ request: SendPushRequest?) async -> PushJobResult {
        guard let request else {
            return PushJobResult(jobID: job.id, delivered: false, reason: "InvalidRequest", environment: nil, removed: false)
        }
        var notification = request.notification
        notification.apnsID = UUID(uuidString: job.apnsID)
        if job.notificationID != nil || job.badge != nil {
            var payload = notification.payload
            if let id = job.notificationID { payload.custom[Inbox.idKey] = .string(id) }
            if let badge = job.badge { payload.aps.badge = badge }
            notification.payload = payload
        }
        let device = Device(
            userID: job.userID ?? "", token: job.token, environment: job.environment.flatMap(PushEnvironment.init(named:)), bundleID: job.bundleID,
            updatedAt: "")
        let outcome = await delivery.deliver(notification, to: device, requested: request.environment ?? defaultEnvironment)
        return PushJobResult(
            jobID: job.id, delivered: outcome.outcome.delivered, reason: outcome.outcome.reason, environment: outcome.environment.rawValue,
            removed: outcome.removed)
    }

    /// Commits outcomes; on a store failure they stay pending and go out again on the next pass.
    private func record(_ results: inout [PushJobResult]) {
        try? store.finishJobs(results)
        results.removeAll(keepingCapacity: true)
    }
}
