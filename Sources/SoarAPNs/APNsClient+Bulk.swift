import Foundation

/// One notification of a bulk send and how it ended.
public struct APNsResult: Sendable {
    /// Its position in the input sequence.
    public let index: Int
    public let notification: APNsNotification
    public let outcome: APNsOutcome
}

extension APNsClient {
    /// Sends a sequence of any length, keeping up to `maxInFlight` requests outstanding
    /// (``APNsConfiguration/bulkWindow`` by default), and streams each outcome as it arrives (not
    /// in input order; ``APNsResult/index`` tells).
    ///
    /// The sequence is read lazily, so a million notifications never sit in memory at once.
    public func send<S: Sequence>(_ notifications: S, maxInFlight: Int? = nil) -> AsyncStream<APNsResult>
    where S.Element == APNsNotification {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            BulkSend(client: self, iterator: notifications.makeIterator(), maxInFlight: max(1, maxInFlight ?? configuration.bulkWindow),
                     deliver: { continuation.yield($0) }, done: { continuation.finish() }).start()
        }
    }

    /// The same bulk send, handing each result to `onResult` as it arrives (no task per result,
    /// for the highest throughput); returns when every notification has ended. `onResult` runs on
    /// the send's own thread, one result at a time.
    public func send<S: Sequence>(_ notifications: S, maxInFlight: Int? = nil, onResult: @escaping @Sendable (APNsResult) -> Void) async
    where S.Element == APNsNotification {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            BulkSend(client: self, iterator: notifications.makeIterator(), maxInFlight: max(1, maxInFlight ?? configuration.bulkWindow),
                     deliver: onResult, done: { finished.resume() }).start()
        }
    }
}

/// What a bulk send's thread runs; not generic, so starting it captures no iterator metatype.
private protocol BulkRunner: AnyObject, Sendable {
    func run()
}

extension BulkRunner {
    func start() {
        let thread = Thread { self.run() }
        thread.name = "soar-apns-bulk"
        thread.start()
    }
}

/// Where completions leave their results for the send's thread. Not generic, so a completion
/// closure captures no iterator metatype.
private final class BulkResults: @unchecked Sendable {
    /// Guarded by `condition`.
    struct Shared {
        var ended: [APNsResult] = []
        var inFlight = 0
        /// The send's thread is waiting for `batch` results (or the last one).
        var waiting = false
    }

    let condition = NSCondition()
    var shared = Shared()
    /// Results are taken in batches of about this many, so the loop thread rarely wakes the send's.
    let batch: Int

    init(batch: Int) { self.batch = batch }

    /// A request's final outcome, from the transport's thread (or wherever a retry ended).
    func ended(_ result: APNsResult) {
        let wake: Bool = condition.withLock {
            shared.ended.append(result)
            shared.inFlight -= 1
            guard shared.waiting, shared.ended.count >= batch || shared.inFlight == 0 else { return false }
            shared.waiting = false  // one signal is enough
            return true
        }
        if wake { condition.signal() }
    }
}

/// One bulk send, on a thread of its own: it reads the sequence, makes each request (Apple's
/// rules, the apns-id, the headers) and hands the caller its results, in batches, while the
/// transport's loop thread only moves bytes; a completion there just queues its outcome.
private final class BulkSend<Iterator: IteratorProtocol>: BulkRunner, @unchecked Sendable where Iterator.Element == APNsNotification {
    let client: APNsClient
    let maxInFlight: Int
    let deliver: @Sendable (APNsResult) -> Void
    let done: @Sendable () -> Void
    /// Used on the send's thread only.
    private var iterator: Iterator
    private var nextIndex = 0
    private let results: BulkResults

    init(client: APNsClient, iterator: Iterator, maxInFlight: Int, deliver: @escaping @Sendable (APNsResult) -> Void, done: @escaping @Sendable () -> Void) {
        self.client = client
        self.maxInFlight = maxInFlight
        self.deliver = deliver
        self.done = done
        self.iterator = iterator
        results = BulkResults(batch: max(1, min(64, maxInFlight / 8)))
    }

    func run() {
        var exhausted = false
        var taken: [APNsResult] = []
        let (condition, batch) = (results.condition, results.batch)
        while true {
            let room: Int = condition.withLock {
                // Wait while there is nothing to start and too few results to be worth a turn;
                // the timed wait hands over a trickle of results from a slow server as well.
                while results.shared.ended.count < batch, results.shared.inFlight > 0, exhausted || results.shared.inFlight > maxInFlight - batch {
                    results.shared.waiting = true
                    _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
                    results.shared.waiting = false
                    if !results.shared.ended.isEmpty { break }
                }
                swap(&taken, &results.shared.ended)
                return maxInFlight - results.shared.inFlight
            }
            // New requests first, so the connections are full again before the caller's turn.
            if !exhausted { exhausted = startRequests(upTo: room) }
            for result in taken { deliver(result) }
            taken.removeAll(keepingCapacity: true)
            if exhausted, condition.withLock({ results.shared.inFlight == 0 && results.shared.ended.isEmpty }) { break }
        }
        done()
    }

    /// Starts up to `room` requests.
    ///
    /// - Returns: whether the sequence has ended.
    private func startRequests(upTo room: Int) -> Bool {
        var requests: [(Int, APNsNotification, APNsRequest)] = []
        var exhausted = false
        while requests.count < room {
            guard let notification = iterator.next() else {
                exhausted = true
                break
            }
            let index = nextIndex
            nextIndex += 1
            do {
                requests.append((index, notification, try APNsRequest(notification, bundleID: client.configuration.bundleID)))
            } catch {
                deliver(APNsResult(index: index, notification: notification, outcome: .failed(.invalidRequest(error))))
            }
        }
        // Counted before any is sent: a completion may come back at once.
        results.condition.withLock { results.shared.inFlight += requests.count }
        // Handed over together, so they leave together.
        client.dispatch(requests.map { index, notification, request in
            (request, { [results] outcome in results.ended(APNsResult(index: index, notification: notification, outcome: outcome)) })
        })
        return exhausted
    }
}
