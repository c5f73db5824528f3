import Foundation

/// The claims SQLite's push workers hold on jobs, kept in memory: one process owns the file, so
/// no other process can hold one. A claim is a range of job ids leased to one worker until its
/// lease ends; a worker that stops renewing loses it, and the pending jobs in its range can be
/// claimed again. Claims stay known (for counting attempts) until their range has no pending job.
struct JobClaims {
    struct Claim {
        let first: Int64
        let last: Int64
        var owner: String
        var until: Date

        func covers(_ id: Int64) -> Bool { first <= id && id <= last }
    }

    private(set) var claims: [Claim] = []

    /// The id ranges no live lease covers, in order: where the next claim may look.
    func freeRanges(at time: Date) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        var from = Int64.min
        for claim in claims.filter({ $0.until >= time }).sorted(by: { $0.first < $1.first }) {
            if from < claim.first { ranges.append(from...(claim.first - 1)) }
            from = max(from, claim.last + 1)
        }
        ranges.append(from...Int64.max)
        return ranges
    }

    mutating func add(_ claim: Claim) { claims.append(claim) }

    /// How many claims, this process's, took the job: its attempts beyond the ones stored.
    func attempts(of id: Int64) -> Int { claims.reduce(0) { $0 + ($1.covers(id) ? 1 : 0) } }

    /// Extends the leases `owner` holds.
    mutating func renew(owner: String, until: Date) {
        for index in claims.indices where claims[index].owner == owner { claims[index].until = until }
    }

    /// Forgets the claims whose range has no pending job left.
    mutating func removeAll(where done: (Claim) -> Bool) { claims.removeAll(where: done) }
}
