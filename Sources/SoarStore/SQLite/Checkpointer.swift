import Dispatch
import SoarCore
import Synchronization

/// Copies the WAL back into the database file on a queue of its own, preferably once a burst of
/// writes is over; the writer copies only the last few pages, when writes never pause.
///
/// A checkpoint copies megabytes into the file; done by the committing writer (SQLite's default),
/// it held every write waiting behind it as long: 40% of the time to store a large send, measured
/// straight through SQLite. The writer's commits report the WAL's size here instead, and a
/// ``CheckpointPolicy`` decides: one PASSIVE checkpoint (which neither waits for nor blocks readers
/// or the writer) once the writer has been quiet for `quiet`, or as soon as the WAL reaches `limit`
/// pages; meanwhile the queue flushes the WAL each time ``CheckpointPolicy/eager`` more pages are
/// written. A send to many users, its storing
/// and its outcomes, is copied once after it, not in thirty pieces competing with it for the disk
/// and the cores. Without the writer's own last copy, a writer that never paused kept the WAL from
/// ever starting over: under upserts it grew without end, and each commit past the limit queued
/// another checkpoint, 4,000 a second.
final class Checkpointer: @unchecked Sendable {
    /// Used on `queue` only.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "soar.sqlite.checkpoint")
    /// Nanoseconds without a commit after which the writer counts as quiet.
    private let quiet: UInt64
    /// A quiet check is waiting on the queue.
    private let scheduled = Atomic(false)
    /// A checkpoint asked for now (``CheckpointPolicy/Action/now``) is waiting on the queue.
    private let urgent = Atomic(false)
    /// A flush of the WAL (``CheckpointPolicy/Action/flushWAL``) is waiting on the queue.
    private let flushing = Atomic(false)
    private let lastCommit = Atomic<UInt64>(0)
    /// The WAL's size at the latest commit, in pages.
    private let walPages = Atomic(0)
    private let limit: Int
    /// Flushes made on the queue (see ``flushCount``).
    private let flushes = Atomic(0)
    /// Flushes the file and the WAL; a test can make it fail.
    private let flush: (SQLiteConnection) throws(StoreError) -> Void
    /// Flushes the WAL alone (``CheckpointPolicy/Action/flushWAL``); a test can make it fail.
    private let flushWAL: (SQLiteConnection) throws(StoreError) -> Void
    /// WAL flushes made on the queue (see ``walFlushCount``).
    private let walFlushes = Atomic(0)
    /// Set once the disk failed a checkpoint or a flush: see ``stop(_:)``.
    private let stopped = Atomic(false)
    private let failure = Locked<String?>(nil)
    /// Pages the latest checkpoint left copied, counted in the WAL the writer is on.
    private let progress = Locked(Progress())
    /// Used on the writer only (its commits are one at a time).
    private var policy: CheckpointPolicy

    /// 40,000 pages (about 160 MB). Under steady upserts the writer's last copy (6-17 ms of writes
    /// waiting) comes about every 1.4 s. wrk's p99 was 18.4-19.8 ms against 20.2-20.9 ms with
    /// 20,000; 10,000 had been worse than 20,000.
    static let defaultLimit = 40_000
    /// What the WAL file is cut back to when it starts over: past twice the limit, where the
    /// writer copies whatever is left, so that steady writes reuse the file rather than cut and
    /// regrow it (cutting it took 14-17 ms, writes waiting).
    static let walBytesKept = 2 * defaultLimit * 4096 + (8 << 20)

    private struct Progress {
        /// Which WAL: counted up each time the writer's WAL may have started over.
        var wal = 0
        var copied = 0
    }

    /// - Parameters:
    ///   - quiet: 200 ms by default.
    ///   - limit: ``defaultLimit`` by default.
    init(
        path: String, quiet: Duration = .milliseconds(200), limit: Int = defaultLimit,
        flush: @escaping (SQLiteConnection) throws(StoreError) -> Void = { (connection: SQLiteConnection) throws(StoreError) in
            try connection.syncFile()
            try connection.syncFile(wal: true)
        },
        flushWAL: @escaping (SQLiteConnection) throws(StoreError) -> Void = { (connection: SQLiteConnection) throws(StoreError) in
            try connection.syncFile(wal: true)
        }
    ) throws(StoreError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
        self.quiet = UInt64(quiet.nanoseconds)
        self.limit = limit
        self.flush = flush
        self.flushWAL = flushWAL
        policy = CheckpointPolicy(limit: limit)
    }

    /// How many times the queue flushed the file and the WAL (for tests).
    var flushCount: Int { flushes.load(ordering: .relaxed) }

    /// How many times the queue flushed the WAL alone (for tests).
    var walFlushCount: Int { walFlushes.load(ordering: .relaxed) }

    /// Returns once what the queue had to do when called is done (for tests).
    func waitForQueue() { queue.sync {} }

    /// Why checkpoints stopped, once the disk failed one; nil while they run.
    var failed: String? { failure.withLock { $0 } }

    /// After each commit, on the writer, with the WAL's size in pages.
    func committed(walPages pages: Int, writer: SQLiteConnection) {
        guard !stopped.load(ordering: .relaxed) else { return }
        lastCommit.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        walPages.store(pages, ordering: .relaxed)
        let action = progress.withLock { progress in
            let (action, startedOver) = policy.committed(pages: pages, copied: progress.copied)
            if startedOver { progress = Progress(wal: progress.wal + 1) }
            return action
        }
        switch action {
        case .none:
            break
        case .whenQuiet:
            checkWhenQuiet()
        case .flushWAL:
            checkWhenQuiet()
            guard !flushing.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async { [self] in
                flushing.store(false, ordering: .releasing)
                flushWALOnQueue()
            }
        case .now:
            guard !urgent.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async { [self] in
                urgent.store(false, ordering: .releasing)
                checkpointOnQueue(quiet: false)
            }
        case .onWriter:
            // Busy while the queue is checkpointing: tried again at the next commit.
            if checkpoint(on: writer) { policy.caughtUp(at: pages) }
        }
    }

    /// Schedules a checkpoint for when the writer goes quiet, unless one is.
    private func checkWhenQuiet() {
        if !scheduled.exchange(true, ordering: .acquiringAndReleasing) { check(after: quiet) }
    }

    /// Checkpoints once the writer has been quiet long enough; else looks again when it could be.
    private func check(after delay: UInt64) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [self] in
            let last = lastCommit.load(ordering: .relaxed)
            let now = DispatchTime.now().uptimeNanoseconds
            let quietFor = now > last ? now - last : 0
            guard quietFor >= quiet else { return check(after: quiet - quietFor) }
            scheduled.store(false, ordering: .releasing)
            checkpointOnQueue(quiet: true)
        }
    }

    /// A checkpoint on the queue, then the file and the WAL flushed (see
    /// ``SQLiteConnection/syncFile(wal:)``) when the writer is quiet or the WAL has passed the
    /// limit: the writer's last copy, writes waiting, then has only the latest pages to flush.
    ///
    /// Past the limit the file's pages are flushed together, in larger disk writes: flushed after
    /// every copy, scattered pages went out as thousands of small ones (7,000-8,800 a second under
    /// the upsert benchmark), and on the development VM the host's time for them stopped its CPUs
    /// (steal 3-7%).
    private func checkpointOnQueue(quiet: Bool) {
        guard !stopped.load(ordering: .relaxed), checkpoint(on: connection), quiet || walPages.load(ordering: .relaxed) >= limit
        else { return }
        do {
            try flush(connection)
            flushes.add(1, ordering: .relaxed)
        } catch {
            stop(error)
        }
    }

    /// The WAL flushed, its pages left in it: a disk error stops the checkpoints, as a failed flush
    /// of a checkpoint does.
    private func flushWALOnQueue() {
        guard !stopped.load(ordering: .relaxed) else { return }
        do {
            try flushWAL(connection)
            walFlushes.add(1, ordering: .relaxed)
        } catch {
            stop(error)
        }
    }

    /// A checkpoint busy with another is tried again after a later commit; one the disk fails stops
    /// them all. Its count is kept only if the WAL did not start over meanwhile.
    @discardableResult
    private func checkpoint(on connection: SQLiteConnection) -> Bool {
        let wal = progress.withLock { $0.wal }
        let pages: Int?
        do { pages = try connection.checkpoint() } catch {
            stop(error)
            return false
        }
        guard let pages else { return false }
        progress.withLock { if $0.wal == wal { $0.copied = pages } }
        return true
    }

    /// No checkpoint after a disk error: Linux reports a failed fsync once and may then report the
    /// pages it dropped as written, so a later checkpoint could let the WAL start over without
    /// them. The WAL keeps every commit meanwhile (SQLite synced it before copying), the store
    /// reports itself unhealthy (``failed``), and a restart on a sound disk recovers from the WAL.
    private func stop(_ error: StoreError) {
        let reason = "checkpoints stopped after a disk error (\(error.message)); every write is kept in the WAL: "
            + "restart soar once the disk is sound"
        failure.withLock { $0 = $0 ?? reason }
        stopped.store(true, ordering: .releasing)
    }
}
