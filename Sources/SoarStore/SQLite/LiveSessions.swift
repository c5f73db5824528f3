import SoarCore
import Synchronization

/// Session ids known to exist, so the per-request "is this session signed out?" check does not
/// read the file each time.
///
/// Exact as long as this process is the file's only writer of sessions: every deletion calls
/// ``forgetAll()`` after it commits, and a lookup that raced with one is not remembered (the
/// generation it started under has moved on).
final class LiveSessions: Sendable {
    private struct State {
        var ids: Set<String> = []
        var generation = 0
    }

    private let state = Locked(State())
    private let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// Whether `id` is known to exist; otherwise the generation to pass to ``remember(_:from:)``.
    func lookup(_ id: String) -> (known: Bool, generation: Int) {
        state.withLock { ($0.ids.contains(id), $0.generation) }
    }

    /// Records `id` as existing, unless a deletion committed since `generation` was read.
    func remember(_ id: String, from generation: Int) {
        state.withLock {
            guard $0.generation == generation else { return }
            if $0.ids.count >= capacity { $0.ids.removeAll(keepingCapacity: true) }
            $0.ids.insert(id)
        }
    }

    /// Called after any deletion of sessions has committed.
    func forgetAll() {
        state.withLock {
            $0.ids.removeAll(keepingCapacity: true)
            $0.generation += 1
        }
    }
}
