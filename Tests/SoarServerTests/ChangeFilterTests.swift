import Foundation
import SoarCore
import Testing

@testable import SoarServer

/// A postgres_changes filter checked against the row read once, before any read as a subscriber.
@Suite(.timeLimit(.minutes(1))) struct ChangeFilterTests {
    let row: JSONValue = ["user_id": "9b1c2e4a-0000-4000-8000-000000000001", "sort_order": 5, "title": "b", "done": true, "note": .null]

    @Test func eachOperatorComparesAsPostgresWould() {
        #expect(ChangeFeed.passes(row, ("user_id", "eq.9b1c2e4a-0000-4000-8000-000000000001")))
        #expect(!ChangeFeed.passes(row, ("user_id", "eq.someone-else")))
        #expect(ChangeFeed.passes(row, ("sort_order", "gt.4")) && !ChangeFeed.passes(row, ("sort_order", "gt.5")))
        #expect(ChangeFeed.passes(row, ("sort_order", "gte.5")) && ChangeFeed.passes(row, ("sort_order", "lte.5")) && ChangeFeed.passes(row, ("sort_order", "lt.10")))
        #expect(ChangeFeed.passes(row, ("sort_order", "neq.6")) && !ChangeFeed.passes(row, ("sort_order", "neq.5")))
        #expect(ChangeFeed.passes(row, ("title", "in.(a,b,c)")) && !ChangeFeed.passes(row, ("title", "in.(x,y)")))
        #expect(ChangeFeed.passes(row, ("done", "eq.true")))
        #expect(!ChangeFeed.passes(row, ("note", "eq.x")) && !ChangeFeed.passes(row, ("missing", "eq.x")), "null matches nothing")
    }
}
