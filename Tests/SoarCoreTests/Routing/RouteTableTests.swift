import Foundation
import Testing

@testable import SoarCore

/// An app's own route table: its schemes, hosts, payload keys and paths, from Swift or a file.
@Suite(.timeLimit(.minutes(1))) struct RouteTableTests {
    static let myApp = """
        {"schemes": ["MyApp"], "hosts": ["example.com"], "payload_keys": ["link"],
         "routes": [{"name": "todos", "path": "/todos"}, {"name": "todo", "path": "/todos/:id"},
                    {"name": "todo", "path": "/t/:id"}, {"name": "inbox", "path": "/inbox/:filter=all", "query": ["q"]},
                    {"name": "compose", "path": "/compose", "parameters": {"draft": "true"}}]}
        """

    @Test func anAppsOwnTableRoutesItsLinks() throws {
        let table = try RouteTable(json: Data(Self.myApp.utf8))
        #expect(table.route(for: "myapp:///todos/42") == AppRoute("todo", ["id": "42"]))
        #expect(table.route(for: "myapp://todos") == AppRoute("todos"))
        #expect(table.route(for: "https://example.com/t/7") == AppRoute("todo", ["id": "7"]))
        #expect(table.route(for: "https://dialed.evo.co/todos") == nil, "another app's host")
        #expect(table.route(for: "soar:///todos") == nil, "another app's scheme")
        #expect(table.route(for: "/inbox?q=x") == AppRoute("inbox", ["filter": "all", "q": "x"]))
        #expect(table.path(for: AppRoute("inbox", ["filter": "all"])) == "/inbox")
        #expect(table.path(for: AppRoute("inbox", ["filter": "unread", "q": "a b"])) == "/inbox/unread?q=a%20b")
        #expect(table.path(for: AppRoute("todo", ["id": "7"])) == "/todos/7", "the first spelling is canonical")
        #expect(table.path(for: AppRoute("compose", ["draft": "true"])) == "/compose")
        #expect(table.path(for: AppRoute("todo", ["id": "7", "extra": "x"])) == nil, "no place for a parameter")
        #expect(table.deepLink(for: AppRoute("todo", ["id": "7"]))?.absoluteString == "myapp:///todos/7")
        let payload = try Payload(object: ["aps": ["alert": "hi"], "target_url": "/todos", "link": "/todos/1"])
        #expect(table.route(for: payload) == AppRoute("todo", ["id": "1"]), "only the table's payload keys are read")
        #expect(table.describe(AppRoute("inbox", ["q": "x", "filter": "all"])) == "inbox(filter: all, q: x)")
    }

    @Test func aFileRoundTrips() throws {
        let table = try RouteTable(json: Data(Self.myApp.utf8))
        #expect(try RouteTable(json: Data(table.fileText.utf8)) == table)
        #expect(try RouteTable(json: Data(RouteTable.seedApp.fileText.utf8)) == .seedApp)
        #expect(RouteTable.seedApp.routes.count == 21, "every seed row is well-formed")
    }

    @Test(arguments: [
        (#"[]"#, "a route table is a JSON object"),
        (#"{"schemes": ["x",}"#, "not JSON: "),
        ("", "not JSON: "),
        (#"{"schemes": ["a"], "routes": [{"name": "a", "path": "/a", "paramters": {}}]}"#, "routes[0] (a): unknown key \"paramters\""),
        (#"{"schemes": ["a"], "routes": [], "extra": 1}"#, "unknown key \"extra\""),
        (#"{"routes": [{"name": "a", "path": "/a"}]}"#, "\"schemes\" needs at least one URL scheme"),
        (#"{"schemes": ["a"], "routes": []}"#, "\"routes\" needs at least one route"),
        (#"{"schemes": ["a"], "routes": [{"name": "a"}]}"#, "routes[0] needs a \"name\" and a \"path\""),
        (#"{"schemes": ["a"], "routes": [{"name": "a", "path": "x"}]}"#, "must start with /"),
        (#"{"schemes": ["a"], "routes": [{"name": "a", "path": "/a"}, {"name": "b", "path": "/:x?/y"}]}"#, "routes[1]: b: in /:x?/y, only the last segment may be optional"),
        (#"{"schemes": ["a"], "routes": [{"name": "a", "path": "/:id/:id"}]}"#, "every parameter needs a name of its own"),
        (#"{"schemes": [1], "routes": [{"name": "a", "path": "/a"}]}"#, "\"schemes\" must be a list of strings"),
        (#"{"schemes": ["a"], "routes": [{"name": "a", "path": "/a", "parameters": {"x": 1}}]}"#, "parameter \"x\" must be a string"),
    ])
    func mistakesAreNamed(json: String, message: String) {
        #expect {
            try RouteTable(json: Data(json.utf8))
        } throws: { error in
            (error as? RouteTableError)?.description.contains(message) == true
        }
    }
}
