import Dispatch
import SoarCore
import Synchronization

/// Copies the WAL back into the database file on a queue of its own, never on the writer, and
/// preferably once a burst of writes is over.
///
/// A checkpoint copies megabytes into the file; done by the committing writer (SQLite's default),
/// it held every write waiting behind it as long: 40% of the time to store a large send, measured
/// straight through SQLite. The writer's commits report the WAL's size here instead. Once
/// `threshold` pages wait to be copied, one PASSIVE checkpoint (which neither waits for nor blocks
/// readers or the writer) runs once the writer has been quiet for `quiet`, or as soon as the WAL
/// passes `limit` pages: a send to many users, its storing and its outcomes, is copied once after
/// it, not in thirty pieces competing with it for the disk and the cores.
///
/// SQLite starts the WAL over only when a write transaction begins with every page of it copied.
/// A writer that never pauses never finds it so, since it commits more while the queue copies:
/// the WAL then grew without end, and each commit past the limit asked for another checkpoint
/// (4,000 a second under upserts, one of the two cores). So past the limit, once the queue has
/// copied all but a few pages, the writer copies the rest itself, right after its commit.
final class Checkpointer: @unchecked Sendable {
    /// SQLite's own threshold for its automatic checkpoints.
    static let threshold = 1_000
    /// Pages the writer copies itself at most: about 1 MB, a few milliseconds.
    static let catchUp = 256

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
    /// Pages of the WAL the latest checkpoint left copied, counted from its start.
    private let copied = Atomic(0)
    /// Used on the writer only: the WAL's size when the writer last copied the rest itself.
    private var caughtUpAt = 0

    /// - Parameters:
    ///   - quiet: 200 ms by default.
    ///   - limit: 10,000 pages (about 40 MB) by default.
    init(path: String, quiet: Duration = .milliseconds(200), limit: Int = 10_000) throws(StoreError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
        self.quiet = UInt64(quiet.nanoseconds)
        self.limit = limit
    }

    /// What a commit that leaves the WAL at some size calls for.
    enum Action: Equatable {
        case none
        /// A checkpoint on the queue once the writer is quiet.
        case whenQuiet
        /// A checkpoint on the queue now.
        case now
        /// The writer copies the few pages left itself, now.
        case onWriter
    }

    /// The action for a WAL of `pages` pages of which `copied` are in the file, when the writer
    /// last copied the rest itself at `caughtUpAt` pages (counts larger than `pages` belong to a
    /// WAL that has since started over).
    ///
    /// Past the limit, the queue copies until at most `catchUp` pages are left, which the writer
    /// then copies. The writer does so at most once per `threshold` new pages, so a reader holding
    /// an old snapshot (which keeps pages from being copied) cannot make it checkpoint on every
    /// commit.
    static func action(pages: Int, copied: Int, caughtUpAt: Int, limit: Int) -> Action {
        let behind = pages - (copied > pages ? 0 : copied)
        guard pages >= limit else { return behind >= threshold ? .whenQuiet : .none }
        if behind > catchUp { return .now }
        let since = pages - (caughtUpAt > pages ? 0 : caughtUpAt)
        return since >= threshold ? .onWriter : .none
    }

    /// After each commit, on the writer, with the WAL's size in pages.
    func committed(walPages pages: Int, writer: SQLiteConnection) {
        lastCommit.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        switch Self.action(pages: pages, copied: copied.load(ordering: .relaxed), caughtUpAt: caughtUpAt, limit: limit) {
        case .none:
            break
        case .whenQuiet:
            if !scheduled.exchange(true, ordering: .acquiringAndReleasing) { check(after: quiet) }
        case .now:
            guard !urgent.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async { [self] in
                urgent.store(false, ordering: .releasing)
                checkpoint(on: connection)
            }
        case .onWriter:
            // Busy while the queue is checkpointing: tried again at the next commit.
            if checkpoint(on: writer) { caughtUpAt = pages }
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
            checkpoint(on: connection)
        }
    }

    /// A checkpoint that fails (busy with another, or the disk full) is tried again after a
    /// later commit.
    @discardableResult
    private func checkpoint(on connection: SQLiteConnection) -> Bool {
        guard let pages = try? connection.checkpoint() else { return false }
        copied.store(pages, ordering: .relaxed)
        return true
    }
}
