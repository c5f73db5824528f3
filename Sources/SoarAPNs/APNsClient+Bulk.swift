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
    public func send<S: Sequence>(_ notifications: S, maxInFlight: Int = 2000) -> AsyncStream<APNsResult>
    where S.Element == APNsNotification {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let bulk = BulkSend(client: self, iterator: notifications.makeIterator(), maxInFlight: max(1, maxInFlight), continuation: continuation)
            bulk.pump()
        }
    }
}

/// The state of one bulk send; `pump` runs from the caller and from each completion.
private final class BulkSend<Iterator: IteratorProtocol>: @unchecked Sendable where Iterator.Element == APNsNotification {
    private struct State {
        var iterator: Iterator
        var next = 0
        var inFlight = 0
        var exhausted = false
    }

    let client: APNsClient
    let maxInFlight: Int
    let continuation: AsyncStream<APNsResult>.Continuation
    /// Guarded by `lock`: the iterator is not Sendable, so a Mutex cannot own it.
    private var state: State
    private let lock = NSLock()

    init(client: APNsClient, iterator: Iterator, maxInFlight: Int, continuation: AsyncStream<APNsResult>.Continuation) {
        self.client = client
        self.maxInFlight = maxInFlight
        self.continuation = continuation
        self.state = State(iterator: iterator)
    }

    /// Starts requests until `maxInFlight` are outstanding; finishes the stream when all are done.
    func pump() {
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
                client.dispatch(request, attempt: 1) { [self] outcome in finish(index, notification, outcome) }
            } catch {
                finish(index, notification, .failed(.invalidRequest(error)), pumping: false)
            }
        }
        let done = locked { $0.exhausted && $0.inFlight == 0 }
        if done { continuation.finish() }
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    private func finish(_ index: Int, _ notification: APNsNotification, _ outcome: APNsOutcome, pumping: Bool = true) {
        continuation.yield(APNsResult(index: index, notification: notification, outcome: outcome))
        locked { $0.inFlight -= 1 }
        if pumping { pump() }
    }
}
