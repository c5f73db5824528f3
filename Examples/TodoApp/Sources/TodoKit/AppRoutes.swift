import SoarClient

/// The app's own screens and the links that open them: `todoapp:///todos/ID`,
/// `https://todo.example.com/inbox`, a push's `target_url` or `deeplink`.
public enum AppRoutes {
    public static let table: RouteTable = {
        let rows = [("todos", "/todos"), ("todo", "/todos/:id"), ("inbox", "/inbox"), ("profile", "/profile")]
        // The patterns above are well-formed; `AppRoutesTests` reads every one.
        return RouteTable(
            schemes: ["todoapp"], hosts: ["todo.example.com"], payloadKeys: ["target_url", "deeplink"],
            routes: rows.compactMap { try? RoutePattern($0.0, $0.1) })
    }()
}
