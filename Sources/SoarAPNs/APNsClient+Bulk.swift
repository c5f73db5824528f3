import Foundation

/// One notification of a bulk send and how it ended.
public struct APNsResult: Sendable {
    /// Its position in the input sequence.
    public let index: Int
    public let notification: APNsNotification
    public let outcome: APNsOutcome
}

extension APNsClient {
    /// Sends a sequence of any length, keeping up to `maxInFlight` requests outstanding, and
    /// streams each outcome as it arrives (not in input order; ``APNsResult/index`` tells).
    ///
    /// The sequence is read lazily, so a million notifications never sit in memory at once.
    public func send<S: Sequence>(_ notifications: S, maxInFlight: Int = 1000) -> AsyncStream<APNsResult>
    where S.Element == APNsNotification {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            BulkSend(client: self, iterator: notifications.makeIterator(), maxInFlight: max(1, maxInFlight),
                     deliver: { continuation.yield($0) }, done: { continuation.finish() }).pump()
        }
    }

    /// The same bulk send, handing each result to `onResult` on the transport's thread as it
    /// arrives (no hop to another task per result, for the highest throughput); returns when
    /// every notification has ended. `onResult` must be quick and thread-safe.
    public func send<S: Sequence>(_ notifications: S, maxInFlight: Int = 1000, onResult: @escaping @Sendable (APNsResult) -> Void) async
    where S.Element == APNsNotification {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            BulkSend(client: self, iterator: notifications.makeIterator(), maxInFlight: max(1, maxInFlight),
                     deliver: onResult, done: { finished.resume() }).pump()
        }
    }
}

/// The state of one bulk send; `pump` runs from the caller and from each completion.
/// What a completion calls back: not generic, so the closure carries no iterator metatype.
private protocol BulkCompletion: AnyObject, Sendable {
    func finish(_ index: Int, _ notification: APNsNotification, _ outcome: APNsOutcome, pumping: Bool)
}

private final class BulkSend<Iterator: IteratorProtocol>: BulkCompletion, @unchecked Sendable where Iterator.Element == APNsNotification {
    private struct State {
        var iterator: Iterator
        var next = 0
        var inFlight = 0
        var exhausted = false
        var finished = false
        /// A pump is running; a completion that arrives inside it (an immediate failure, say)
        /// asks it to go round again instead of pumping on top of it, so the stack stays flat
        /// however many notifications fail at once.
        var pumping = false
        var pumpAgain = false
    }

    let client: APNsClient
    let maxInFlight: Int
    let deliver: @Sendable (APNsResult) -> Void
    let done: @Sendable () -> Void
    /// Guarded by `lock`: the iterator is not Sendable, so a Mutex cannot own it.
    private var state: State
    private let lock = NSLock()

    init(client: APNsClient, iterator: Iterator, maxInFlight: Int, deliver: @escaping @Sendable (APNsResult) -> Void, done: @escaping @Sendable () -> Void) {
        self.client = client
        self.maxInFlight = maxInFlight
        self.deliver = deliver
        self.done = done
        self.state = State(iterator: iterator)
    }

    /// Starts requests until `maxInFlight` are outstanding; finishes the stream when all are done.
    func pump() {
        let first = locked { state -> Bool in
            guard !state.pumping else {
                state.pumpAgain = true
                return false
            }
            state.pumping = true
            return true
        }
        guard first else { return }
        repeat { startRequests() } while locked { state -> Bool in
            if state.pumpAgain {
                state.pumpAgain = false
                return true
            }
            state.pumping = false
            return false
        }
        // Exactly one caller sees the last completion, so `done` runs once.
        let finished = locked { state -> Bool in
            guard state.exhausted, state.inFlight == 0, !state.finished else { return false }
            state.finished = true
            return true
        }
        if finished { done() }
    }

    private func startRequests() {
        while true {
            let taken: (Int, APNsNotification)? = locked { state in
                guard !state.exhausted, state.inFlight < maxInFlight else { return nil }
                guard let notification = state.iterator.next() else {
                    state.exhausted = true
                    return nil
                }
                state.inFlight += 1
                defer { state.next += 1 }
                return (state.next, notification)
            }
            guard let (index, notification) = taken else { break }
            do {
                let request = try APNsRequest(notification, bundleID: client.configuration.bundleID)
                let completion: any BulkCompletion = self
                client.dispatch(request, attempt: 1) { outcome in completion.finish(index, notification, outcome, pumping: true) }
            } catch {
                finish(index, notification, .failed(.invalidRequest(error)), pumping: false)
            }
        }
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    func finish(_ index: Int, _ notification: APNsNotification, _ outcome: APNsOutcome, pumping: Bool) {
        deliver(APNsResult(index: index, notification: notification, outcome: outcome))
        locked { $0.inFlight -= 1 }
        if pumping { pump() }
    }
}
