import Foundation
import SoarCore

/// `soar route URL-OR-PATH`: which screen a link, `target_url` or payload file opens.
struct RouteCommand: Command {
    static let name = "route"
    static let summary = "Show the screen a link, path or payload file (.json, .apns) opens."
    static let arguments = "URL-OR-PATH"
    static let options = [Option("--json", help: "Print the route as one JSON object."), RoutesChoice.option]
    static let discussion = """
        Examples:
          soar route /brands/abc123/hub        brandHub(publicId: abc123, tab: overview)
          soar route soar:///notifications     notifications
          soar route payload.apns              the route a tap on that notification opens
          soar route --routes app/routes.json myapp:///todos/42

        Exits 1 when nothing matches.
        """

    let input: String
    let json: Bool
    let routes: RouteTable

    init(_ arguments: Arguments) throws(CommandError) {
        input = try arguments.single("URL or path")
        json = arguments.flag("--json")
        routes = try RoutesChoice(arguments).table
    }

    func run(_ console: Console) async throws(CommandError) {
        let route: AppRoute?
        if input.hasSuffix(".json") || input.hasSuffix(".apns") {
            route = routes.route(for: try PayloadFileReader.read(input).payload)
        } else {
            route = routes.route(for: input)
        }
        guard let route else { throw .failure("no route matches \(input)") }
        let path = routes.path(for: route) ?? "/"
        if json {
            let object: JSONValue = [
                "route": .string(route.name), "path": .string(path),
                "parameters": .object(route.parameters.mapValues(JSONValue.string)),
            ]
            console.print(object.jsonText)
        } else {
            console.print(routes.describe(route))
            console.print("path: \(path)")
        }
    }
}
