import Foundation
import Testing

@testable import SoarStore

/// SQLite's claims in memory: a claim ends when every job it took has, whatever else its range spans.
@Suite(.timeLimit(.minutes(5))) struct JobClaimsTests {
    let later = Date(timeIntervalSince1970: 1_000)

    @Test func aClaimCountsOnlyTheJobsItTook() {
        var claims = JobClaims()
        // a's lease lapsed with job 2 unfinished; b's range spans it, but job 2 ended before b read.
        claims.add(JobClaims.Claim(first: 1, last: 3, owner: "a", until: .distantPast, unfinished: [2]))
        claims.add(JobClaims.Claim(first: 2, last: 5, owner: "b", until: later, unfinished: [4, 5]))
        claims.ended([2])
        #expect(claims.removeFinished().map(\.owner) == ["a"])
        #expect(claims.claims.map(\.owner) == ["b"] && claims.attempts(of: 4) == 1 && claims.attempts(of: 2) == 0)
        claims.ended([4, 5])
        #expect(claims.removeFinished().map(\.owner) == ["b"] && claims.claims.isEmpty)
        #expect(claims.unclaimedFrom == 6, "the next claim looks after the last job ever claimed")
    }

    @Test func aJobTakenAgainCountsEachClaim() {
        var claims = JobClaims()
        claims.add(JobClaims.Claim(first: 1, last: 2, owner: "a", until: .distantPast, unfinished: [1, 2]))
        #expect(claims.freeRanges(at: later).first == 1...Int64.max, "a lapsed lease frees its range")
        claims.add(JobClaims.Claim(first: 2, last: 2, owner: "b", until: later, unfinished: [2]))
        #expect(claims.attempts(of: 2) == 2 && claims.attempts(of: 1) == 1)
    }
}
