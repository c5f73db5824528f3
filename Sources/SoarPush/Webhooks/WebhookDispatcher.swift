import Foundation
import SoarCore
import SoarStore

/// Delivers webhook messages on a thread of its own: claims the due ones with a lease (so another
/// process on the same Postgres, or this one after a restart, takes over what a dead one held),
/// signs each attempt, POSTs them through ``WebhookPoster`` and records what came of each: a 2xx
/// delivers it; anything else (another status, a refusal, a timeout) tries it again after the
/// next wait of ``Settings/retryDelays``, and after the last it is given up (`failed`). At least
/// once: a message whose answer was lost with its process goes again, with the same
/// `webhook-id`.
final class WebhookDispatcher: Sendable {
    struct Settings: Sendable {
        /// How long a receiver may take to answer.
        var timeout: Duration = .seconds(10)
        /// The waits before each retry: Standard Webhooks' suggested schedule, about a day in all.
        var retryDelays: [TimeInterval] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000]
        /// How soon to look again for due messages after a look found none: the first wait,
        /// doubled while they stay away, up to the longest.
        var pollInterval: Duration = .milliseconds(100)
        var longestPoll: Duration = .seconds(1)
        /// Messages claimed at once.
        var batch = 500
        /// Requests in flight at once.
        var concurrency = 32
        /// Delivered and given-up messages are kept this long (a send's detail lists them).
        var retention: TimeInterval = 7 * 86_400
    }

    private let store: any WebhookStore
    private let settings: Settings
    private let now: @Sendable () -> Date
    private let owner = "\(ProcessInfo.processInfo.processIdentifier)-\(RandomUUID.lowercase())"
    private let stopped = Locked(false)
    private let wakeup = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(store: any WebhookStore, settings: Settings = Settings(), now: @escaping @Sendable () -> Date) {
        self.store = store
        self.settings = settings
        self.now = now
    }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "soar-webhooks"
        thread.start()
    }

    /// Ends the loop after the batch in hand; returns once it has ended.
    func stop() {
        guard stopped.withLock({ let was = $0; $0 = true; return !was }) else { return }
        wakeup.signal()
        finished.wait()
    }

    private func run() {
        let poster = WebhookPoster(timeout: settings.timeout, concurrency: settings.concurrency)
        // A lease outlives a batch's slowest round of attempts, with room to record them.
        let batchRounds = (settings.batch + settings.concurrency - 1) / settings.concurrency
        let lease = Double(settings.timeout.components.seconds + 1) * Double(batchRounds) + 30
        var lastPrune = Date.distantPast
        var wait = settings.pollInterval
        while !stopped.withLock({ $0 }) {
            let time = now()
            if time.timeIntervalSince(lastPrune) > 3600 || time < lastPrune {
                lastPrune = time
                try? store.pruneWebhookMessages(finishedBefore: Timestamp.postgres(time - settings.retention))
            }
            let messages = (try? store.claimWebhookMessages(
                owner: owner, now: Timestamp.postgres(time), leaseUntil: Timestamp.postgres(time + lease), limit: settings.batch)) ?? []
            guard !messages.isEmpty else {
                _ = wakeup.wait(timeout: .now() + .milliseconds(Int(wait.milliseconds)))
                wait = min(wait * 2, settings.longestPoll)
                continue
            }
            wait = settings.pollInterval
            // The wall clock's, whatever clock schedules: receivers check it against theirs.
            let timestamp = Int(Date().timeIntervalSince1970)
            let responses = poster.post(messages.map { message in
                let body = Data(message.payload.utf8)
                return WebhookPoster.Request(
                    url: message.url, body: body, headers: WebhookSignature.headers(id: message.id, timestamp: timestamp, body: body, secret: message.secret))
            })
            let answered = now()
            let attempts = zip(messages, responses).map { message, response in
                let delivered = response.status.map { (200..<300).contains($0) } ?? false
                let retry = message.attempts < settings.retryDelays.count ? answered + settings.retryDelays[message.attempts] : nil
                return WebhookAttempt(
                    seq: message.seq, delivered: delivered, status: response.status,
                    error: delivered ? nil : response.error ?? response.status.map { "the receiver answered \($0)" },
                    retryAt: delivered ? nil : retry.map(Timestamp.postgres))
            }
            // Not recorded (the store is down): the leases lapse and the messages go again.
            try? store.finishWebhookMessages(attempts, at: Timestamp.postgres(answered))
        }
    }
}
