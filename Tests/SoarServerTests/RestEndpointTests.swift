import Foundation
import SoarCore
import SoarTesting
import Testing

/// The PostgREST subset: reads, writes, preferences, and ownership that no query shape gets around.
@Suite(.timeLimit(.minutes(5))) struct RestEndpointTests {
    let fixture: ServerFixture

    init() async throws { fixture = try await ServerFixture.start() }

    let representation = ["prefer": "return=representation"]

    @Test func deviceTokenUpsertIsIdempotent() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let body = #"{"user_id":"\#(alice.id)","token":"00aa11223344556677","platform":"ios"}"#
        for _ in 0..<2 {
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: alice.token,
                headers: ["prefer": "resolution=merge-duplicates,return=representation"], body: body)
            #expect(answer.status == 201)
            #expect(answer.rows.first?["token"] == "00aa11223344556677")
        }
        let rows = try await fixture.call("GET", "/rest/v1/device_tokens?select=*", bearer: alice.token, headers: ["prefer": "count=exact"])
        #expect(rows.rows.count == 1)
        #expect(rows.headers["content-range"] == "0-0/1")
    }

    @Test func mediaTypesAreNegotiatedAsPostgRESTDoes() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let csvIn = "title,sort_order\n\"milk, oat\",2\nbread,1\n"
        let created = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, headers: ["content-type": "text/csv"], body: csvIn)
        #expect(created.status == 201, "\(created.text)")
        let csv = try await fixture.call("GET", "/rest/v1/todos?select=title,sort_order,completed&order=sort_order", bearer: alice.token, headers: ["accept": "text/csv"])
        #expect(csv.status == 200 && csv.headers["content-type"] == "text/csv; charset=utf-8")
        #expect(csv.text == "title,sort_order,completed\nbread,1,f\n\"milk, oat\",2,f\n", "\(csv.text)")
        let preferred = try await fixture.call("GET", "/rest/v1/todos?select=title", bearer: alice.token, headers: ["accept": "text/csv;q=0.5, application/json"])
        #expect(preferred.headers["content-type"] == "application/json; charset=utf-8")
        let xml = try await fixture.call("GET", "/rest/v1/todos", bearer: alice.token, headers: ["accept": "application/xml"])
        #expect(xml.status == 406 && xml.object["code"] == "PGRST107" && xml.object["message"] == "None of these media types are available: application/xml")
        let plain = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, headers: ["content-type": "text/plain"], body: #"{"title":"x"}"#)
        #expect(plain.status == 415 && plain.object["code"] == "PGRST107", "\(plain.text)")
        let form = try await fixture.call(
            "POST", "/rest/v1/todos", bearer: alice.token, headers: ["content-type": "application/x-www-form-urlencoded", "prefer": "return=representation"],
            body: "title=from+a+form&sort_order=7")
        #expect(form.status == 201 && form.rows.first?["title"] == "from a form" && form.rows.first?["sort_order"] == 7, "\(form.text)")
        let broken = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, headers: ["content-type": "text/csv"], body: "title\n\"open")
        #expect(broken.status == 400 && broken.object["code"] == "PGRST102")
        let all = try await fixture.call("GET", "/rest/v1/todos?select=title", bearer: alice.token)
        #expect(all.rows.count == 3, "nothing stored by the refused bodies")
        // ilike folds case beyond ASCII, as Postgres does.
        _ = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, body: #"{"title":"ÄPFEL kaufen"}"#)
        let folded = try await fixture.call("GET", "/rest/v1/todos?select=title&title=ilike.*äpfel*", bearer: alice.token)
        #expect(folded.rows.count == 1, "\(folded.text)")
        let empty = try await fixture.call("GET", "/rest/v1/todos?select=title&title=ilike.", bearer: alice.token)
        #expect(empty.status == 200 && empty.rows.isEmpty)
    }

    @Test func todosFlow() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let bulk = #"[{"title":"b","sort_order":2},{"title":"a","sort_order":1},{"title":"c","sort_order":3}]"#
        let inserted = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, headers: representation, body: bulk)
        #expect(inserted.status == 201 && inserted.rows.count == 3)
        #expect(inserted.rows[0]["user_id"] == .string(alice.id), "user_id defaults to the caller")
        #expect(inserted.rows[0]["completed"] == .bool(false))
        #expect(inserted.rows[0]["created_at"]?.stringValue?.hasSuffix("+00:00") == true)
        let ordered = try await fixture.call("GET", "/rest/v1/todos?select=title,position:sort_order&order=sort_order.desc", bearer: alice.token)
        #expect(ordered.rows.map { $0["title"] } == ["c", "b", "a"])
        #expect(ordered.rows[0]["position"] == 3)
        let id = try #require(inserted.rows.first?["id"]?.stringValue)
        let patched = try await fixture.call("PATCH", "/rest/v1/todos?id=eq.\(id)", bearer: alice.token, headers: representation, body: #"{"completed":true}"#)
        #expect(patched.status == 200 && patched.rows.first?["completed"] == .bool(true))
        let done = try await fixture.call("GET", "/rest/v1/todos?completed=is.true&select=id", bearer: alice.token)
        #expect(done.rows.count == 1)
        let page = try await fixture.call("GET", "/rest/v1/todos?order=sort_order", bearer: alice.token, headers: ["range": "1-2", "prefer": "count=exact"])
        #expect(page.rows.map { $0["title"] } == ["b", "c"])
        #expect(page.rows.count == 2 && page.headers["content-range"] == "1-2/3")
        let deleted = try await fixture.call("DELETE", "/rest/v1/todos?id=eq.\(id)", bearer: alice.token, body: "{}")
        #expect(deleted.status == 204)
        let counted = try await fixture.call("HEAD", "/rest/v1/todos", bearer: alice.token, headers: ["prefer": "count=exact"])
        #expect(counted.headers["content-range"] == "0-1/2" && counted.body.isEmpty)
    }

    @Test func valuesAreStoredExactlyOrRefusedNeverAltered() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let back = ["prefer": "return=representation"]
        for number in ["9007199254740993", "9223372036854775807", "-9223372036854775808"] {
            let answer = try await fixture.call(
                "POST", "/rest/v1/todos?select=sort_order", bearer: alice.token, headers: back, body: #"{"title":"n","sort_order":\#(number)}"#)
            #expect(answer.status == 201 && answer.rows.first?["sort_order"]?.jsonText == number, "\(number): \(answer.text)")
        }
        for (body, code) in [
            (#"{"title":"n","sort_order":9223372036854775808}"#, "22003"), (#"{"title":"n","sort_order":1.5}"#, "22P02"),
            (#"{"title":"n","sort_order":1.00000000000000001}"#, "22P02"), (#"{"title":"n","sort_order":4503599627370497.5}"#, "22P02"),
            (#"{"title":"ab\u0000cd"}"#, "22P05"),
        ] {
            let answer = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, body: body)
            #expect(answer.status == 400 && answer.object["code"] == .string(code), "\(body): \(answer.text)")
        }
        let rows = try await fixture.call("GET", "/rest/v1/todos?select=id", bearer: alice.token)
        #expect(rows.rows.count == 3)
    }

    @Test func aFilterTooLargeForTheStoreIsABadQueryNotAStoreError() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let terms = { (n: Int) in (0..<n).map { "sort_order.eq.\($0)" }.joined(separator: ",") }
        let many = try await fixture.call("GET", "/rest/v1/todos?or=(\(terms(400)))", bearer: alice.token)
        #expect(many.status == 200, "\(many.text.prefix(300))")
        let tooMany = try await fixture.call("GET", "/rest/v1/todos?or=(\((0...500).map { _ in "id.is.null" }.joined(separator: ",")))", bearer: alice.token)
        #expect(tooMany.status == 400 && tooMany.object["code"] == "PGRST100", "\(tooMany.text.prefix(300))")
        let nested = String(repeating: "or(", count: 40) + "sort_order.eq.1" + String(repeating: ")", count: 40)
        let deep = try await fixture.call("GET", "/rest/v1/todos?or=(\(nested))", bearer: alice.token)
        #expect(deep.status == 400 && deep.object["code"] == "PGRST100", "\(deep.text.prefix(300))")
    }

    @Test func singleObjectAndItsErrors() async throws {
        let alice = try await fixture.signUp("a@example.com")
        _ = try await fixture.call("POST", "/rest/v1/profiles", bearer: alice.token, body: #"{"id":"\#(alice.id)","full_name":"Alice"}"#)
        let accept = ["accept": "application/vnd.pgrst.object+json"]
        let one = try await fixture.call("GET", "/rest/v1/profiles?id=eq.\(alice.id)", bearer: alice.token, headers: accept)
        #expect(one.status == 200 && one.object["full_name"] == "Alice")
        let none = try await fixture.call("GET", "/rest/v1/profiles?id=eq.\(RandomUUID.lowercase())", bearer: alice.token, headers: accept)
        #expect(none.status == 406 && none.object["code"] == "PGRST116")
    }

    @Test func aWriteOfOtherThanOneRowAskedAsOneObjectIsRolledBack() async throws {
        let alice = try await fixture.signUp("a@example.com")
        _ = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, body: #"[{"title":"o1"},{"title":"o2"}]"#)
        let single = ["accept": "application/vnd.pgrst.object+json", "prefer": "return=representation"]
        let cases = [
            ("PATCH", "/rest/v1/todos?title=in.(o1,o2)", #"{"title":"o3"}"#),
            ("DELETE", "/rest/v1/todos?title=in.(o1,o2)", "{}"),
            ("POST", "/rest/v1/todos", #"[{"title":"o4"},{"title":"o5"}]"#),
        ]
        for (method, path, body) in cases {
            let answer = try await fixture.call(method, path, bearer: alice.token, headers: single, body: body)
            #expect(answer.status == 406 && answer.object["code"] == "PGRST116", "\(method): \(answer.text)")
        }
        let rows = try await fixture.call("GET", "/rest/v1/todos?select=title&order=title", bearer: alice.token)
        #expect(rows.rows.map { $0["title"] } == ["o1", "o2"], "nothing changed: \(rows.text)")
        let one = try await fixture.call("PATCH", "/rest/v1/todos?title=eq.o1", bearer: alice.token, headers: single, body: #"{"title":"o6"}"#)
        #expect(one.status == 200 && one.object["title"] == "o6")
    }

    @Test func rangesAreAnsweredAsPostgRESTAnswersThem() async throws {
        let alice = try await fixture.signUp("a@example.com")
        _ = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, body: #"[{"title":"a"},{"title":"b"}]"#)
        let backwards = try await fixture.call("GET", "/rest/v1/todos", bearer: alice.token, headers: ["range": "9-1"])
        #expect(backwards.status == 416 && backwards.object["code"] == "PGRST103", "\(backwards.text)")
        let counted = ["prefer": "count=exact"]
        let past = try await fixture.call("GET", "/rest/v1/todos?offset=5", bearer: alice.token, headers: counted)
        #expect(past.status == 416 && past.object["details"] == "An offset of 5 was requested, but there are only 2 rows.")
        let rest = try await fixture.call("GET", "/rest/v1/todos?offset=1", bearer: alice.token, headers: counted)
        #expect(rest.status == 206 && rest.headers["content-range"] == "1-1/2", "part of the rows, the count known")
        let end = try await fixture.call("GET", "/rest/v1/todos?offset=2", bearer: alice.token, headers: counted)
        #expect(end.status == 206 && end.headers["content-range"] == "*/2" && end.rows.isEmpty, "just past the last row")
        let uncounted = try await fixture.call("GET", "/rest/v1/todos?offset=5", bearer: alice.token)
        #expect(uncounted.status == 200 && uncounted.rows.isEmpty, "without a count, nothing to compare the offset with")
        let head = try await fixture.call("HEAD", "/rest/v1/todos", bearer: alice.token, headers: ["range": "1-1", "prefer": "count=exact"])
        #expect(head.status == 200 && head.headers["content-range"] == "0-1/2", "the Range header counts for GET only")
        let widest = try await fixture.call("GET", "/rest/v1/todos", bearer: alice.token, headers: ["range": "0-9223372036854775807"])
        #expect(widest.status == 200 && widest.rows.count == 2, "the widest range: \(widest.text)")
        let garbage = try await fixture.call("GET", "/rest/v1/todos", bearer: alice.token, headers: ["range": "bytes"])
        #expect(garbage.status == 200 && garbage.rows.count == 2, "a header that is no range is ignored")
    }

    /// The SQLite store keeps a read's SQL by its request: the same request still answers each
    /// caller with their own rows and each range with its page, and a value that spells another
    /// request's parameters is still one value.
    @Test func aRepeatedReadAnswersEachCallerAndEachQueryAsItself() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let bob = try await fixture.signUp("b@example.com")
        for (user, titles) in [(alice, ["a1", "a2", "a3"]), (bob, ["b1"])] {
            let rows = titles.enumerated().map { #"{"title":"\#($1)","sort_order":\#($0)}"# }.joined(separator: ",")
            #expect(try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: "[\(rows)]").status == 201)
        }
        let path = "/rest/v1/todos?select=title&order=sort_order"
        for _ in 0..<2 {
            #expect(try await fixture.call("GET", path, bearer: alice.token).rows.map { $0["title"] } == ["a1", "a2", "a3"])
            #expect(try await fixture.call("GET", path, bearer: bob.token).rows.map { $0["title"] } == ["b1"])
            #expect(try await fixture.call("GET", path, bearer: alice.token, headers: ["range": "1-1"]).rows.map { $0["title"] } == ["a2"])
            // Another role's read of the same request is its own (anon reaches no todo).
            let anon = try await fixture.call("GET", path)
            #expect(anon.rows.isEmpty, "\(anon.status) \(anon.text)")
        }
        #expect(try await fixture.call("GET", path + "&title=eq.a1", bearer: alice.token).rows.map { $0["title"] } == ["a1"])
        let spelled = try await fixture.call("GET", "/rest/v1/todos?select=title&order=sort_order%26title%3Deq.a1", bearer: alice.token)
        #expect(spelled.status == 400, "one order value, not an order and a filter: \(spelled.text)")
    }

    @Test func profileUpsertOfOneFieldKeepsTheOthers() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let upsert = ["prefer": "resolution=merge-duplicates,return=representation"]
        _ = try await fixture.call("POST", "/rest/v1/profiles", bearer: alice.token, headers: upsert, body: #"{"id":"\#(alice.id)","full_name":"Alice","bio":"hi"}"#)
        let answer = try await fixture.call(
            "POST", "/rest/v1/profiles?on_conflict=id", bearer: alice.token, headers: upsert,
            body: #"{"id":"\#(alice.id)","location":"Oslo","updated_at":"2026-01-01T00:00:00Z"}"#)
        #expect(answer.status == 201)
        let row = try #require(answer.rows.first)
        #expect(row["full_name"] == "Alice" && row["bio"] == "hi" && row["location"] == "Oslo")
        #expect(row["updated_at"] == "2026-01-01T00:00:00.000000+00:00")
    }

    @Test func noQueryShapeReachesAnotherUsersRows() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let bob = try await fixture.signUp("b@example.com")
        let made = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, headers: representation, body: #"{"title":"secret"}"#)
        let id = try #require(made.rows.first?["id"]?.stringValue)
        let attempts = [
            "/rest/v1/todos", "/rest/v1/todos?id=eq.\(id)", "/rest/v1/todos?or=(user_id.eq.\(alice.id),id.eq.\(id))",
            "/rest/v1/todos?user_id=eq.\(alice.id)", "/rest/v1/todos?not.and=(id.is.null)", "/rest/v1/todos?select=secret:title&offset=0",
        ]
        for path in attempts {
            let answer = try await fixture.call("GET", path, bearer: bob.token, headers: ["range": "0-100"])
            #expect(answer.status == 200 && answer.rows.isEmpty, "\(path)")
        }
        let patch = try await fixture.call("PATCH", "/rest/v1/todos?id=eq.\(id)", bearer: bob.token, headers: representation, body: #"{"title":"mine"}"#)
        #expect(patch.rows.isEmpty)
        let delete = try await fixture.call("DELETE", "/rest/v1/todos?or=(id.eq.\(id))", bearer: bob.token, headers: representation)
        #expect(delete.rows.isEmpty)
        let insert = try await fixture.call("POST", "/rest/v1/todos", bearer: bob.token, body: #"{"title":"x","user_id":"\#(alice.id)"}"#)
        #expect(insert.status == 403 && insert.object["code"] == "42501")
        let steal = try await fixture.call(
            "POST", "/rest/v1/todos", bearer: bob.token, headers: ["prefer": "resolution=merge-duplicates"], body: #"{"id":"\#(id)","title":"stolen"}"#)
        #expect(steal.status == 403)
        let anon = try await fixture.call("GET", "/rest/v1/todos")
        #expect(anon.status == 200 && anon.rows.isEmpty)
        let anonInsert = try await fixture.call("POST", "/rest/v1/todos", body: #"{"title":"x","user_id":"\#(alice.id)"}"#)
        #expect(anonInsert.status == 401 && anonInsert.object["code"] == "42501")
        let still = try await fixture.call("GET", "/rest/v1/todos", bearer: alice.token)
        #expect(still.rows.map { $0["title"] } == ["secret"])
    }

    @Test func subscriptionsAndPaymentsAreReadOnlyForClients() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let write = try await fixture.call("POST", "/rest/v1/payments", bearer: alice.token, body: #"{"amount_cents":100,"currency":"usd","status":"paid"}"#)
        #expect(write.status == 403 && write.object["code"] == "42501")
        let service = fixture.serviceKey
        let seeded = try await fixture.call(
            "POST", "/rest/v1/subscriptions", bearer: service, headers: ["apikey": service],
            body: #"{"user_id":"\#(alice.id)","product_id":"pro","status":"active"}"#)
        #expect(seeded.status == 201)
        let read = try await fixture.call("GET", "/rest/v1/subscriptions", bearer: alice.token)
        #expect(read.rows.count == 1)
        let cancel = try await fixture.call("PATCH", "/rest/v1/subscriptions?product_id=eq.pro", bearer: alice.token, body: #"{"status":"canceled"}"#)
        #expect(cancel.status == 403)
    }

    @Test func badInputGetsPostgRESTErrorsAndChangesNothing() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let cases: [(String, String, String?, Int, String)] = [
            ("GET", "/rest/v1/nope", nil, 404, "PGRST205"),
            ("GET", "/rest/v1/todos?nope=eq.1", nil, 400, "42703"),
            ("GET", "/rest/v1/todos?select=nope", nil, 400, "42703"),
            ("GET", "/rest/v1/todos?sort_order=eq.x", nil, 400, "22P02"),
            ("GET", "/rest/v1/todos?id=eq.not-a-uuid", nil, 400, "22P02"),
            ("GET", "/rest/v1/todos?title=zz.1", nil, 400, "PGRST100"),
            ("GET", "/rest/v1/todos?or=(title.eq.1", nil, 400, "PGRST100"),
            ("GET", "/rest/v1/todos?title=is.true", nil, 400, "42804"),
            ("POST", "/rest/v1/todos", "{broken", 400, "PGRST102"),
            ("POST", "/rest/v1/todos", #"{"title":"x","nope":1}"#, 400, "PGRST204"),
            ("POST", "/rest/v1/todos", #"{"title":"x","sort_order":"many"}"#, 400, "22P02"),
            ("POST", "/rest/v1/todos", #"{"title":null}"#, 400, "23502"),
            ("POST", "/rest/v1/todos", #"[{"title":"a"},{"sort_order":1}]"#, 400, "PGRST102"),
            ("POST", "/rest/v1/todos", "42", 400, "PGRST102"),
        ]
        for (method, path, body, status, code) in cases {
            let answer = try await fixture.call(method, path, bearer: alice.token, body: body)
            #expect(answer.status == status && answer.object["code"] == .string(code), "\(method) \(path) \(body ?? ""): \(answer.status) \(answer.text)")
            for key in ["code", "message", "details", "hint"] { #expect(answer.object[key] != nil, "\(key) in \(answer.text)") }
        }
        let id = RandomUUID.lowercase()
        _ = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, body: #"{"id":"\#(id)","title":"a"}"#)
        let duplicate = try await fixture.call("POST", "/rest/v1/todos", bearer: alice.token, body: #"{"id":"\#(id)","title":"b"}"#)
        #expect(duplicate.status == 409 && duplicate.object["code"] == "23505")
        // Supabase's safeupdate: no filter, no update or delete, whoever asks.
        for (method, body, bearer) in [("PATCH", #"{"title":"all"}"#, alice.token), ("DELETE", "{}", alice.token), ("DELETE", "{}", fixture.serviceKey)] {
            let unfiltered = try await fixture.call(method, "/rest/v1/todos", bearer: bearer, body: body)
            let statement = method == "PATCH" ? "UPDATE" : "DELETE"
            #expect(unfiltered.status == 400 && unfiltered.object["code"] == "21000", "\(method): \(unfiltered.text)")
            #expect(unfiltered.object["message"] == .string("\(statement) requires a WHERE clause"))
        }
        let rows = try await fixture.call("GET", "/rest/v1/todos", bearer: alice.token)
        #expect(rows.rows.map { $0["title"] } == ["a"])
    }
}
