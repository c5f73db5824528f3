import Foundation

/// The claims SQLite's push workers hold on jobs, kept in memory: one process owns the file, so
/// no other process can hold one. A claim is a range of job ids leased to one worker until its
/// lease ends; a worker that stops renewing loses it, and the pending jobs in its range can be
/// claimed again. A claim stays known (for counting attempts) until each job it took has ended.
struct JobClaims {
    struct Claim {
        let first: Int64
        let last: Int64
        var owner: String
        var until: Date
        /// The jobs it took that have no outcome yet.
        var unfinished: Set<Int64>

        func covers(_ id: Int64) -> Bool { first <= id && id <= last }
    }

    private(set) var claims: [Claim] = []
    /// No job from here on was claimed by this process; below it, every job has ended or is in
    /// one of `claims`. Claims look for pending jobs from here, or from the lowest claim.
    var unclaimedFrom: Int64 = 0

    /// The id ranges no live lease covers, in order: where the next claim may look.
    func freeRanges(at time: Date) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        var from = claims.map(\.first).min().map { min($0, unclaimedFrom) } ?? unclaimedFrom
        for claim in claims.filter({ $0.until >= time }).sorted(by: { $0.first < $1.first }) {
            if from < claim.first { ranges.append(from...(claim.first - 1)) }
            from = max(from, claim.last + 1)
        }
        ranges.append(from...Int64.max)
        return ranges
    }

    mutating func add(_ claim: Claim) {
        claims.append(claim)
        unclaimedFrom = max(unclaimedFrom, claim.last + 1)
    }

    /// How many claims, this process's, took the job and hold it still: its attempts beyond the
    /// ones stored.
    func attempts(of id: Int64) -> Int { claims.reduce(0) { $0 + ($1.unfinished.contains(id) ? 1 : 0) } }

    /// Extends the leases `owner` holds.
    mutating func renew(owner: String, until: Date) {
        for index in claims.indices where claims[index].owner == owner { claims[index].until = until }
    }

    /// Counts these jobs as ended in each claim that took them.
    mutating func ended(_ ids: [Int64]) {
        for id in ids {
            for index in claims.indices where claims[index].covers(id) { claims[index].unfinished.remove(id) }
        }
    }

    /// Forgets the claims whose jobs have all ended, and returns them.
    mutating func removeFinished() -> [Claim] {
        let done = claims.filter(\.unfinished.isEmpty)
        claims.removeAll(where: \.unfinished.isEmpty)
        return done
    }
}
