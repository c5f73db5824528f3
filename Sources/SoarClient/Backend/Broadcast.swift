import Foundation
import SoarCore
import Synchronization

/// Fans values out to any number of AsyncStreams; a stream that ends is forgotten.
final class Broadcast<Element: Sendable>: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<Element>.Continuation]>([:])

    /// A new stream of the values yielded from now on, starting with `first` when given.
    ///
    /// `first` is read after the stream is registered, so a change in between is not lost (at
    /// worst it arrives twice).
    func stream(startingWith first: @autoclosure () -> Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(100))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.continuations.withLock { _ = $0.removeValue(forKey: id) } }
        continuations.withLock { $0[id] = continuation }
        if let first = first() { continuation.yield(first) }
        return stream
    }

    func yield(_ value: Element) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(value) }
    }

    deinit {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
