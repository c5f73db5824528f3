import SoarCore

/// `soar payload validate FILE`: would APNs accept this payload, and where would a tap go?
struct PayloadValidateCommand: Command {
    static let name = "payload validate"
    static let summary = "Check an APNs JSON or Simulator .apns payload: types, size against the limit, and its route."
    static let arguments = "FILE"
    static let options = [
        Option("--push-type", value: "TYPE", help: "alert (default), background, voip, liveactivity, ...; voip allows 5120 bytes."),
        RoutesChoice.option,
    ]
    static let discussion = """
        FILE may be - for standard input. Exits 1 when the payload is invalid or too large.
        """

    let path: String
    let pushType: PushType
    let routes: RouteTable

    init(_ arguments: Arguments) throws(CommandError) {
        path = try arguments.single("payload file")
        pushType = try arguments.pushType()
        routes = try RoutesChoice(arguments).table
    }

    func run(_ console: Console) async throws(CommandError) {
        let file = try PayloadFileReader.read(path)
        let size = file.payload.size
        do {
            try file.payload.checkedData(for: pushType)
        } catch {
            throw .failure("invalid payload in \(path): \(error.description)")
        }
        console.print("valid: \(size) of \(pushType.payloadLimit) bytes (\(pushType))")
        if let target = file.targetBundle { console.print("simulator target: \(target)") }
        if let route = routes.route(for: file.payload) {
            console.print("route: \(routes.describe(route)) -> \(routes.path(for: route) ?? "/")")
        } else {
            console.print("route: none (no \(routes.payloadKeys.joined(separator: ", ")) that names a known screen)")
        }
    }
}
