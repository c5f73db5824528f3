import Dispatch
import Synchronization

/// Copies the WAL back into the database file on a queue of its own, never on the writer, and
/// preferably once a burst of writes is over.
///
/// A checkpoint copies megabytes into the file; done by the committing writer (SQLite's default),
/// it held every write waiting behind it as long: 40% of the time to store a large send, measured
/// straight through SQLite. The writer's commits report the WAL's size here instead. Past
/// `threshold` pages, one PASSIVE checkpoint (which neither waits for nor blocks readers or the
/// writer) runs once the writer has been quiet for `quiet`, or at once past `limit` pages: a send
/// to many users, its storing and its outcomes, is copied once after it, not in thirty pieces
/// competing with it for the disk and the cores. Once everything is copied, the writer starts the
/// WAL over at its next commit.
final class Checkpointer: @unchecked Sendable {
    /// SQLite's own threshold for its automatic checkpoints.
    static let threshold = 1_000
    /// About 40 MB of WAL: copied then even while writes go on.
    static let limit = 10_000
    /// In nanoseconds: 200 ms.
    static let quiet: UInt64 = 200_000_000

    /// Used on `queue` only.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "soar.sqlite.checkpoint")
    private let scheduled = Atomic(false)
    private let walPages = Atomic(0)
    private let lastCommit = Atomic<UInt64>(0)

    init(path: String) throws(StoreError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
    }

    /// After each commit of the writer, with the WAL's size in pages.
    func committed(walPages pages: Int) {
        walPages.store(pages, ordering: .relaxed)
        lastCommit.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        guard pages >= Self.threshold, !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        check(after: Self.quiet)
    }

    /// Checkpoints if the writer has been quiet long enough or the WAL is past the limit; else looks again later.
    private func check(after delay: UInt64) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [self] in
            let last = lastCommit.load(ordering: .relaxed)
            let quietFor = DispatchTime.now().uptimeNanoseconds - last
            guard quietFor >= Self.quiet || walPages.load(ordering: .relaxed) >= Self.limit else { return check(after: Self.quiet - quietFor) }
            scheduled.store(false, ordering: .releasing)
            // A checkpoint that fails (the disk full, say) is tried again after a later commit.
            try? connection.checkpoint()
        }
    }
}
