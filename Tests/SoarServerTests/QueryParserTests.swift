import SoarTesting
@testable import SoarServer
import SoarStore
import Testing

/// PostgREST query strings into the query model: columns checked, values typed.
@Suite(.timeLimit(.minutes(5))) struct QueryParserTests {
    let parser = QueryParser(table: StarterTables.todos)

    func parse(_ pairs: [(String, String)]) throws(QueryError) -> RowQuery {
        try parser.parse(pairs.map { (name: $0.0, value: $0.1) })
    }

    @Test func selectTakesColumnsStarAndAliases() throws {
        let query = try parse([("select", "id, done:completed")])
        #expect(query.outputs == [.init(column: "id", key: "id"), .init(column: "completed", key: "done")])
        #expect(try parse([("select", "*")]).outputs.count == StarterTables.todos.columns.count)
    }

    @Test func filtersAreTypedByTheirColumn() throws {
        let query = try parse([("completed", "eq.true"), ("sort_order", "gte.2"), ("title", "like.*milk*")])
        #expect(
            query.condition
                == .all([
                    .compare(column: "completed", op: .eq, operand: .value(.integer(1))),
                    .compare(column: "sort_order", op: .gte, operand: .value(.integer(2))),
                    .compare(column: "title", op: .like, operand: .value(.text("%milk%"))),
                ]))
    }

    @Test func inListsKeepQuotedCommas() throws {
        let query = try parse([("title", #"in.("a,b",c)"#)])
        #expect(query.condition == .compare(column: "title", op: .in, operand: .list([.text("a,b"), .text("c")])))
    }

    @Test func orAndNotNest() throws {
        let query = try parse([("or", "(completed.is.true,and(sort_order.gt.1,title.not.eq.x))")])
        #expect(
            query.condition
                == .any([
                    .compare(column: "completed", op: .is, operand: .isTrue),
                    .all([
                        .compare(column: "sort_order", op: .gt, operand: .value(.integer(1))),
                        .not(.compare(column: "title", op: .eq, operand: .value(.text("x")))),
                    ]),
                ]))
        #expect(try parse([("title", "is.not_null")]).condition == .not(.compare(column: "title", op: .is, operand: .null)))
    }

    @Test func orderFollowsPostgresNullDefaults() throws {
        let query = try parse([("order", "sort_order.desc,title.asc.nullsfirst,id")])
        #expect(query.order.map(\.nullsFirst) == [true, true, false])
        #expect(query.order.map(\.descending) == [true, false, false])
    }

    @Test func unknownColumnsAndBadValuesAreTheirPostgresErrors() {
        #expect(throws: QueryError.self) { try parse([("nope", "eq.1")]) }
        do {
            _ = try parse([("sort_order", "eq.abc")])
            Issue.record("no error")
        } catch {
            guard case .store(let store) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(store.code == "22P02")
        }
        do {
            _ = try parse([("select", "id,nope")])
        } catch {
            guard case .store(let store) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(store.code == "42703")
        }
    }

    @Test func brokenSyntaxIsASyntaxError() {
        for pair in [("title", "eq"), ("title", "zz.1"), ("or", "(title.eq.1"), ("order", "title.sideways"), ("limit", "-1"), ("select", "title(")] {
            do {
                _ = try parse([pair])
                Issue.record("accepted \(pair)")
            } catch {
                guard case .syntax = error else {
                    Issue.record("wrong error for \(pair): \(error)")
                    return
                }
            }
        }
    }

    @Test func anEmbeddingOfAnUnrelatedTableIsPGRST200() {
        #expect {
            _ = try parse([("select", "x(*)")])
        } throws: { error in
            guard case QueryError.rest(400, "PGRST200", _, _) = error else { return false }
            return true
        }
    }
}
