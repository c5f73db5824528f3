import Foundation
import SoarClient
import SoarClientTesting
import SoarCore

/// `soar simulate FILE.apns`: a Simulator payload through the app's push pipeline, on Linux.
struct SimulateCommand: Command {
    static let name = "simulate"
    static let summary = "Run a .apns payload through the app-side pipeline: presentation, inbox, tap."
    static let arguments = "FILE.apns"
    static let options = [Option("--json", help: "Print the outcome as one JSON object."), RoutesChoice.option]
    static let discussion = """
        Does what the iOS Simulator does with a dropped .apns file, through SoarClient's
        NotificationsController: the app is in the foreground, the notification arrives, then
        the user taps it. Prints how it is presented, the inbox entry it makes, and the screen
        the tap opens. `-` reads the payload from standard input.

        Example:
          soar simulate push.apns
            presentation: [.banner, .list, .sound]
            inbox: 1 unread, newest "Deal approved" ("Tap to see the brand hub")
            tap opens: brandHub(publicId: 123, tab: overview) (soar:///brands/123/hub)

        Exits 1 when the file is not a payload APNs would accept, 2 when it cannot be read.
        """

    let path: String
    let json: Bool
    let routes: RouteTable

    init(_ arguments: Arguments) throws(CommandError) {
        path = try arguments.single("payload file")
        json = arguments.flag("--json")
        routes = try RoutesChoice(arguments).table
    }

    func run(_ console: Console) async throws(CommandError) {
        let file = try PayloadFileReader.read(path)
        // Checked as APNs checks it (an alert's limit: a Simulator payload is shown as an alert).
        do {
            try file.payload.checkedData(for: file.payload.aps.contentAvailable == true && file.payload.aps.alert == nil ? .background : .alert)
        } catch {
            throw .failure("invalid payload in \(path): \(error.description)")
        }
        let notification = IncomingNotification(identifier: "simulated", payload: file.payload)
        let outcome = await Self.simulate(notification, routes: routes)
        if json {
            var object: [String: JSONValue] = [
                "presentation": outcome.presentation.map { .array($0.names.map(JSONValue.string)) } ?? .null,
                "inbox": outcome.entry.map { entry in
                    ["title": entry.title.map(JSONValue.string) ?? .null, "body": entry.body.map(JSONValue.string) ?? .null, "unread": .int(outcome.unread)]
                } ?? .null,
                "route": outcome.route.map { .string($0.name) } ?? .null,
                "deeplink": outcome.route.flatMap { routes.deepLink(for: $0) }.map { .string($0.absoluteString) } ?? .null,
            ]
            if let bundle = file.targetBundle { object["target_bundle"] = .string(bundle) }
            console.print(JSONValue.object(object).jsonText)
            return
        }
        if let bundle = file.targetBundle { console.print("target bundle: \(bundle)") }
        if let presentation = outcome.presentation {
            console.print("presentation: \(presentation)")
        } else {
            let contentAvailable = file.payload.aps.contentAvailable
            console.print(contentAvailable
                ? "presentation: none (a background notification: the app is woken, nothing is shown)"
                : "presentation: none (no alert, sound or badge, and no content-available: nothing is shown and the app is not woken)")
        }
        if let entry = outcome.entry {
            let text = [entry.title, entry.body].compactMap { $0 }.map { "\"\($0)\"" }
            console.print("inbox: \(outcome.unread) unread, newest \(text.joined(separator: " (") + (text.count > 1 ? ")" : ""))")
        } else {
            console.print("inbox: nothing kept")
        }
        if !notification.isVisible {
            console.print("tap opens: nothing to tap")
        } else if let route = outcome.route {
            console.print("tap opens: \(routes.describe(route)) (\(routes.deepLink(for: route)?.absoluteString ?? "no link"))")
        } else {
            let link = notification.link(in: routes).map { "\($0) is not a known route" } ?? "no deeplink, url or target_url"
            console.print("tap opens: the app only (\(link))")
        }
    }

    struct Outcome {
        var presentation: PresentationOptions?
        var entry: InboxEntry?
        var unread: Int
        var route: AppRoute?
    }

    /// Arrival in the foreground, then a tap, as the app delegate would forward them.
    @MainActor
    static func simulate(_ notification: IncomingNotification, routes: RouteTable) async -> Outcome {
        // The Simulator's side of the system: notifications allowed, and no APNs token, ever.
        let controller = NotificationsController(
            center: FakeNotificationCenter(status: .authorized), registration: FakeRemoteRegistration(token: nil), routes: routes)
        var outcome = Outcome(unread: 0)
        if notification.isVisible {
            outcome.presentation = await controller.willPresent(notification)
            outcome.entry = controller.inbox.entries.first
            outcome.unread = controller.unreadCount
            outcome.route = await controller.didReceive(notification)
        }
        return outcome
    }
}

extension PresentationOptions {
    /// `["banner", "list", "sound"]`.
    var names: [String] {
        [(PresentationOptions.banner, "banner"), (.list, "list"), (.sound, "sound"), (.badge, "badge")].filter { contains($0.0) }.map(\.1)
    }
}
