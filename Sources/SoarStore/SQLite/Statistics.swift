import CSQLite
import Foundation
import SoarCore

/// The query planner's statistics kept current, as Postgres's autovacuum analyzes its tables.
///
/// Without them SQLite guesses that an equality on an indexed column matches about ten rows: a
/// read of a user's rows by id (`id IN (…)` under the policy `auth.uid() = user_id`) then walks
/// the index of every row the user has, however many. So the writer runs `ANALYZE` (exact up
/// to ``analyze``'s limit) when the file is opened and, checked every second, once the rows
/// written since the last analysis reach a tenth of those written before it (at least 1,000)
/// and 10 s have passed since the one before (the first needs no wait);
/// the readers are then opened again, since a connection loads the statistics when it opens.
final class Statistics: @unchecked Sendable {
    static let interval: DispatchTimeInterval = .seconds(1)
    /// The least time between two analyses: each takes the writer for some milliseconds and
    /// sends the readers' prepared statements back to be prepared again.
    static let spacing: TimeInterval = 10
    /// The first 20,000 rows of each index: an analysis holds every write (Soar's own tables are
    /// analyzed too), so it stays a few milliseconds an index. A sample of an index's first rows
    /// misjudges a column whose values are uneven (one user with 60,000 todos counted as 1,001);
    /// reads of listed keys do not depend on it (``SQLiteStore/keyLookup(_:_:)``).
    static let analyze = "PRAGMA analysis_limit = 20000; ANALYZE;"

    /// Rows the writer had changed (`sqlite3_total_changes64`) at its latest commit.
    private let changed = Locked<Int64>(0)
    /// The same at the latest analysis, and when it ran (queue only).
    private var analyzedAt: Int64 = 0
    private var analyzedTime = Date.distantPast
    private let queue = DispatchQueue(label: "soar.sqlite.statistics")
    private var timer: DispatchSourceTimer?
    /// Counted up by each analysis: readers opened before it are dropped when they come back.
    let generation = Locked(0)

    /// On the writer, at each commit.
    func committed(writer: SQLiteConnection) {
        let total = writer.totalChanges
        changed.withLock { $0 = total }
    }

    /// Checks every ``interval`` whether an analysis is due; `run` runs one through the writer
    /// (and counts up ``generation``).
    func start(_ run: @escaping @Sendable () throws(StoreError) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(200))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let total = self.changed.withLock { $0 }
            guard total - self.analyzedAt >= max(1000, self.analyzedAt / 10), Date().timeIntervalSince(self.analyzedTime) >= Self.spacing else { return }
            // A failure (the disk's) is the writer's to report; the next turn tries again.
            guard (try? run()) != nil else { return }
            self.analyzedAt = total
            self.analyzedTime = Date()
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops the checks and waits for one under way.
    func stop() {
        cancel()
        queue.sync {}
    }

    /// Stops the checks without waiting: for the store's deinit, which may run on this queue
    /// (a check holding the store's last reference).
    func cancel() { timer?.cancel() }
}
