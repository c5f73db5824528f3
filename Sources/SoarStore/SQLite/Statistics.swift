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
    /// The first 20,000 rows of each index. A sampled analysis reads only the first rows of an
    /// index, so where one value fills them (one user owning the first thousand todos) it counts
    /// that value's rows as the table's average: with a limit of 1,000, 1,001 for a user with
    /// 60,000, and a read of 400 of that user's rows by id walked all 60,000 by `user_id` (49 µs a
    /// row against 5). With 20,000, such a value counts at least 20,000 rows, far past any list
    /// of ids read at once, while an analysis still costs the writer a few milliseconds an index
    /// (every write waits for it, and Soar's own tables are analyzed too).
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
