/// When the WAL is copied back into the database file, and by whom: the writer's side of the
/// ``Checkpointer``, a state machine with no I/O.
///
/// Under `limit` pages, a checkpoint waits for the writer to go quiet, and the queue flushes the WAL
/// each time `eager` more pages are written to it, so that the checkpoint past the limit finds
/// little of it left to flush, without copying pages into the file that later commits change again.
/// Past it, the checkpointer's queue copies while writes go on. SQLite starts the WAL
/// over only at a write transaction that begins with all of it copied, which a writer that never
/// pauses never finds, since it commits more while the queue copies: so once at most `catchUp`
/// pages are left, the writer copies them itself right after its commit. It also does when the WAL
/// reaches twice the limit (a disk too slow for the queue to get that close), and at most once per
/// `threshold` new pages, so a reader holding an old snapshot (which keeps pages from being copied)
/// cannot make it checkpoint on every commit.
struct CheckpointPolicy {
    /// SQLite's own threshold for its automatic checkpoints.
    static let threshold = 1_000
    /// Pages the writer expects to copy itself: about 1 MB. Its two fsyncs (the WAL, then the file)
    /// take most of the time: 8-33 ms measured under the upsert benchmark, writes waiting meanwhile.
    static let catchUp = 256
    /// New WAL pages at which the queue flushes the WAL, under the limit: about 8 MB. Left to a
    /// checkpoint's own fsync, with the former 20,000-page limit, the first one past it flushed 80 MB
    /// at once, and commits took 20-50 ms meanwhile; in smaller pieces, the disk's work stalls the
    /// VM less (wrk's p99 under steady upserts 16.8-21.6 ms with 2,000 against 21.7-27.0 ms with
    /// 4,000, five alternated pairs; 1,000 was no better than 2,000). These pieces used to come with
    /// a copy of the pages into the file (SQLite's checkpoints fsync the WAL first): under random
    /// inserts, most of a copy's pages were copied again by the next ones, and the copies took 7-9%
    /// of the server's CPU; see docs/benchmarks.md.
    static let eager = 2_000

    enum Action: Equatable {
        case none
        /// A checkpoint on the queue once the writer is quiet.
        case whenQuiet
        /// The WAL flushed on the queue now, and a checkpoint once the writer is quiet.
        case flushWAL
        /// A checkpoint on the queue now (which flushes only past the limit; see ``Checkpointer``).
        case now
        /// The writer copies what is left itself, now.
        case onWriter
    }

    let limit: Int
    /// The WAL's size at the previous commit.
    private var lastPages = 0
    /// The WAL's size when the writer last copied it itself.
    private var caughtUpAt = 0
    /// The WAL's size when the queue was last asked to flush it.
    private var flushedAt = 0

    init(limit: Int) { self.limit = limit }

    /// After a commit that left `pages` in the WAL, of which the latest checkpoint counted
    /// `copied` in the file.
    ///
    /// - Returns: the action, and whether the WAL may have started over: everything committed
    ///   before was copied, so this commit's transaction could start it over (it does unless a
    ///   reader still uses it). The caller then counts what is copied from zero again, so that a
    ///   count from the old WAL is never taken for one of the new.
    mutating func committed(pages: Int, copied: Int) -> (action: Action, startedOver: Bool) {
        let startedOver = copied > 0 && copied >= lastPages
        if pages < caughtUpAt { caughtUpAt = 0 }  // smaller than then: it did start over
        if pages < flushedAt { flushedAt = 0 }
        lastPages = pages
        let behind = max(0, pages - (startedOver ? 0 : copied))
        guard pages >= limit else {
            if pages - flushedAt >= Self.eager {
                flushedAt = pages
                return (.flushWAL, startedOver)
            }
            return (behind >= Self.threshold ? .whenQuiet : .none, startedOver)
        }
        if behind <= Self.catchUp || pages >= 2 * limit, pages - caughtUpAt >= Self.threshold {
            return (.onWriter, startedOver)
        }
        return (behind > Self.catchUp ? .now : .none, startedOver)
    }

    /// After the writer copied the WAL itself at `pages`.
    mutating func caughtUp(at pages: Int) { caughtUpAt = pages }
}
