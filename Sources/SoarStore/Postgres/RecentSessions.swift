import Foundation
import SoarCore
import Synchronization

/// Sessions seen to exist in the last `ttl` seconds, so each request does not ask the database.
///
/// Another process may end a session at any time: it is then refused here within `ttl` (GoTrue's
/// own access tokens stay valid until they expire, so this is stricter than Supabase). A deletion
/// in this process forgets every entry at once.
final class RecentSessions: Sendable {
    private let seen = Locked<[String: Date]>([:])
    private let ttl: TimeInterval

    init(ttl: TimeInterval = 2) { self.ttl = ttl }

    func contains(_ id: String, now: Date) -> Bool {
        seen.withLock { ($0[id].map { now.timeIntervalSince($0) < ttl }) ?? false }
    }

    func remember(_ id: String, now: Date) {
        seen.withLock {
            if $0.count > 100_000 { $0.removeAll(keepingCapacity: true) }
            $0[id] = now
        }
    }

    func forgetAll() { seen.withLock { $0.removeAll(keepingCapacity: true) } }
}
