import Foundation
import SoarCore
import SoarHTTP
import SoarRealtime
import SoarSchema
import SoarStore

/// Database changes to realtime subscribers: reads the change log the capture triggers fill (every
/// process on a Postgres database reads the same log), then each changed row as each subscriber,
/// through the data API, so that grants and policies decide who sees it, as Supabase's Realtime
/// does. A deleted row cannot be read: its primary key goes to subscribers that may read the table.
final class ChangeFeed: ChangeAuthority, @unchecked Sendable {
    let store: any Store
    let rest: RestService
    let realtime: RealtimeServer
    private let queue = DispatchQueue(label: "soar.realtime.changes")
    private var timer: DispatchSourceTimer?
    /// The last change read (queue only).
    private var last: Int64 = -1
    private var lastPruned = Date.distantPast
    /// Where reading starts once someone follows: the log's end when the first of them joined.
    private let startAt = Locked<Int64?>(nil)
    /// How often the log is read while someone follows changes.
    static let interval: DispatchTimeInterval = .milliseconds(20)

    init(store: any Store, realtime: RealtimeServer) {
        self.store = store
        rest = RestService(store: store)
        self.realtime = realtime
    }

    /// A turn with someone to deliver to runs on a thread of lowered priority: under a load of
    /// writes the API's requests keep the cores and deliveries take what they leave (they lag
    /// rather than slow the writes).
    private let lane = StoreLane("realtime.changes", .lowPriority)

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: Self.interval, leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            if self.realtime.changeSubscriptions().isEmpty { self.poll(following: false) } else { self.lane.wait { self.poll(following: true) } }
        }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        queue.sync {}
    }

    // MARK: ChangeAuthority

    func refusal(_ binding: ChangeBinding, identity: RealtimeIdentity) -> String? {
        guard identity.role != ConsoleLive.role else { return "the console's socket follows no table" }
        let tables = store.tables
        let published = store.realtimeTables
        guard let name = binding.table else {
            return published.isEmpty ? "no table is in the supabase_realtime publication: add one in a migration with `alter publication supabase_realtime add table <name>`" : nil
        }
        guard let table = tables[name], !table.relation.isView else { return "table \"\(name)\" does not exist in the public schema" }
        guard published.contains(name) else {
            return "table \"\(name)\" is not in the supabase_realtime publication: add it in a migration with `alter publication supabase_realtime add table \(name)`"
        }
        if let filter = binding.filterParameter, table.columns.first(where: { $0.name == filter.name }) == nil {
            return "the filter's column \"\(filter.name)\" does not exist in \"\(name)\""
        }
        let probe = read(name, [("select", "*"), ("limit", "0")], as: identity)
        guard probe.status == 200 else { return "permission denied for table \(name): \(probe.message)" }
        // Changes from this moment on reach it, even those made before the feed's next turn.
        if let end = try? store.lastChangeID() { startAt.withLock { $0 = min($0 ?? end, end) } }
        return nil
    }

    // MARK: reading the log

    /// - Parameter following: whether anyone followed changes when the turn began.
    private func poll(following: Bool) {
        do {
            if !store.realtimeTables.isEmpty, Date().timeIntervalSince(lastPruned) > 10 {
                lastPruned = Date()
                try store.pruneChanges(olderThan: 60)
            }
            guard following else {
                // Nobody follows: the store is left alone, and reading starts from then when someone does.
                last = -1
                gaps = [:]
                return
            }
            if last < 0 { last = try startAt.withLock({ $0 }) ?? store.lastChangeID() }
            startAt.withLock { $0 = nil }
            // The log and the rows are read in one snapshot: on SQLite one read transaction, whose
            // page cache serves the rows' second read (as each subscriber) after the first.
            let (batch, deliveries, failed) = try store.snapshot { () throws(StoreError) in
                let batch = try store.changes(after: last, missing: gaps.keys.sorted(), limit: 500)
                // Who follows, once the log is read: taken before (the turn may wait long for its
                // low-priority lane), a subscriber who joined meanwhile missed the changes it read.
                let subscriptions = realtime.changeSubscriptions()
                // Every delivery is worked out before any is sent: a read the store fails leaves the
                // whole batch to the next turn, so that nothing is lost and nothing comes twice.
                var reads = BatchReads(changes: batch, tables: store.tables, subscriptions: subscriptions)
                var deliveries: [(payload: [UInt8], key: SubscriptionKey)] = []
                for subscription in subscriptions where !batch.isEmpty { deliveries += self.deliveries(batch, to: subscription, reads: &reads) }
                return (batch, deliveries, reads.failed)
            }
            let now = Date()
            gaps = gaps.filter { now.timeIntervalSince($0.value) < Self.gapPatience }
            guard !batch.isEmpty, !failed else { return }
            advance(past: batch, now: now)
            realtime.deliver(deliveries)
        } catch {
            // The store is unavailable: the next turn tries again from the same change.
        }
    }

    /// Ids the log skipped, by when they were first missed: on Postgres a transaction takes its id
    /// when it writes and may commit after a later one was read. Read again until they appear.
    private var gaps: [Int64: Date] = [:]
    /// How long a skipped id is waited for (a statement's own limit is 30 s); a rolled-back
    /// transaction's ids never appear.
    static let gapPatience: TimeInterval = 35
    /// The most skipped ids kept (a sequence that jumped, after a crash, skips many at once).
    static let maxGaps = 1000

    /// Moves past `batch`: the ids it skipped become gaps, those it found are gaps no more.
    private func advance(past batch: [RowChange], now: Date) {
        var expected = last + 1
        for change in batch {
            guard change.id > last else {
                gaps[change.id] = nil
                continue
            }
            if change.id > expected, change.id - expected <= Int64(Self.maxGaps - gaps.count) {
                for id in expected..<change.id { gaps[id] = now }
            }
            expected = max(expected, change.id + 1)
        }
        last = max(last, expected - 1)
    }
}
