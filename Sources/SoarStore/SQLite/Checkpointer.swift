import Dispatch
import SoarCore
import Synchronization

/// Copies the WAL back into the database file on a queue of its own, never on the writer, and
/// preferably once a burst of writes is over.
///
/// A checkpoint copies megabytes into the file; done by the committing writer (SQLite's default),
/// it held every write waiting behind it as long: 40% of the time to store a large send, measured
/// straight through SQLite. The writer's commits report the WAL's size here instead. Past
/// `threshold` pages, one PASSIVE checkpoint (which neither waits for nor blocks readers or the
/// writer) runs once the writer has been quiet for `quiet`, or as soon as the WAL passes `limit`
/// pages: a send to many users, its storing and its outcomes, is copied once after it, not
/// in thirty pieces competing with it for the disk and the cores. Once everything is copied, the
/// writer starts the WAL over at its next commit.
final class Checkpointer: @unchecked Sendable {
    /// SQLite's own threshold for its automatic checkpoints.
    static let threshold = 1_000

    /// Used on `queue` only.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "soar.sqlite.checkpoint")
    /// Nanoseconds without a commit after which the writer counts as quiet.
    private let quiet: UInt64
    /// WAL pages past which a checkpoint runs even while writes go on.
    private let limit: Int
    /// A quiet check is waiting on the queue.
    private let scheduled = Atomic(false)
    /// A checkpoint past the limit is waiting on the queue.
    private let urgent = Atomic(false)
    private let lastCommit = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - quiet: 200 ms by default.
    ///   - limit: 10,000 pages (about 40 MB) by default.
    init(path: String, quiet: Duration = .milliseconds(200), limit: Int = 10_000) throws(StoreError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
        self.quiet = UInt64(quiet.nanoseconds)
        self.limit = limit
    }

    /// After each commit of the writer, with the WAL's size in pages.
    func committed(walPages pages: Int) {
        lastCommit.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        guard pages >= Self.threshold else { return }
        if pages >= limit {
            guard !urgent.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async { [self] in
                urgent.store(false, ordering: .releasing)
                checkpoint()
            }
        } else if !scheduled.exchange(true, ordering: .acquiringAndReleasing) {
            check(after: quiet)
        }
    }

    /// Checkpoints once the writer has been quiet long enough; else looks again when it could be.
    private func check(after delay: UInt64) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [self] in
            let last = lastCommit.load(ordering: .relaxed)
            let now = DispatchTime.now().uptimeNanoseconds
            let quietFor = now > last ? now - last : 0
            guard quietFor >= quiet else { return check(after: quiet - quietFor) }
            scheduled.store(false, ordering: .releasing)
            checkpoint()
        }
    }

    /// A checkpoint that fails (the disk full, say) is tried again after a later commit.
    private func checkpoint() { try? connection.checkpoint() }
}
