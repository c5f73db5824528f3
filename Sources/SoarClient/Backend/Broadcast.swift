import Foundation
import Synchronization

/// Fans values out to any number of AsyncStreams; a stream that ends is forgotten.
final class Broadcast<Element: Sendable>: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<Element>.Continuation]>([:])

    /// A new stream of the values yielded from now on, starting with `first` when given.
    func stream(startingWith first: Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(100))
        let id = UUID()
        if let first { continuation.yield(first) }
        continuation.onTermination = { [weak self] _ in self?.continuations.withLock { _ = $0.removeValue(forKey: id) } }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    func yield(_ value: Element) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(value) }
    }

    deinit {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
