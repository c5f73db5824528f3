import Foundation
import SoarClient
import TodoKit

let usage = """
    usage: todoapp COMMAND [ARGUMENTS]   (TODOAPP_URL, TODOAPP_ANON_KEY and TODOAPP_HOME set where it talks and keeps its files)

      sign-up EMAIL PASSWORD    sign-in EMAIL PASSWORD    sign-out    whoami
      todos                     the list (an offline copy says so)
      add TITLE                 done ID-PREFIX            remove ID-PREFIX
      pending                   writes waiting for the server
      sync                      send them now
      name FULL-NAME            the profile's full name
      register-device HEX       what APNs hands the app delegate: registers this device's token
      test-push [LINK]          send-test-push to your own devices (default link todoapp:///inbox)
      inbox                     the server's inbox, with the screen each entry opens
      open LINK                 the screen a link opens
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("todoapp: " + message + "\n").utf8))
    exit(1)
}

let environment = ProcessInfo.processInfo.environment
var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty, !["-h", "--help", "help"].contains(arguments[0]) else {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
let command = arguments.removeFirst()
guard let url = URL(string: environment["TODOAPP_URL"] ?? "http://127.0.0.1:54321") else { fail("TODOAPP_URL is not a URL") }
let home = URL(fileURLWithPath: environment["TODOAPP_HOME"] ?? NSHomeDirectory() + "/.todoapp")
guard let anonKey = environment["TODOAPP_ANON_KEY"], !anonKey.isEmpty else { fail("set TODOAPP_ANON_KEY to the server's anon key (soar serve prints it)") }
let app = TodoApp(url: url, anonKey: anonKey, folder: home)
let following = await app.registrar.start()  // a sign-out below deletes this device's row first

@MainActor func argument(_ name: String) -> String {
    guard !arguments.isEmpty else { fail("\(command) needs \(name)\n\n\(usage)") }
    return arguments.removeFirst()
}

@MainActor func todo(_ prefix: String) async throws(AppError) -> Todo {
    let fetched = try await app.todos.list(userId: try app.user().id).get()
    guard !prefix.isEmpty else { fail("give the first characters of a todo's id (todoapp todos shows them)") }
    let found = fetched.value.filter { $0.id.uuidString.lowercased().hasPrefix(prefix.lowercased()) }
    guard found.count == 1 else { fail(found.isEmpty ? "no todo's id starts with \(prefix)" : "\(prefix) starts \(found.count) todos' ids: give more of one") }
    return found[0]
}

@MainActor func run(_ command: String) async throws(AppError) {
    switch command {
    case "sign-up":
        print("signed up \(try await app.client.auth.signUp(email: argument("EMAIL"), password: argument("PASSWORD")).user.email ?? "")")
        await app.registrar.retry()  // this device's token, if it has one, now belongs to the new user
    case "sign-in":
        print("signed in \(try await app.client.auth.signIn(email: argument("EMAIL"), password: argument("PASSWORD")).user.email ?? "")")
        await app.registrar.retry()
    case "sign-out":
        await app.client.auth.signOut()
        print(await app.registrar.hasPendingWipe ? "signed out (this device's row could not be deleted yet: the next run tries again)" : "signed out")
    case "whoami": print(try app.user().email ?? "anonymous")
    case "todos":
        let fetched = try await app.todos.list(userId: try app.user().id).get()
        if fetched.isStale { print("(offline: the copy from \(Timestamp.format(fetched.asOf)))") }
        for todo in fetched.value { print("\(todo.completed ? "[x]" : "[ ]") \(todo.title)  \(todo.id.uuidString.lowercased().prefix(8))") }
    case "add":
        let added = try await app.todos.add(text: argument("TITLE"), userId: try app.user().id).get()
        print(await app.queue.pending.isEmpty ? "added \(added.title)" : "added \(added.title) (offline: queued, sent by `todoapp sync`)")
    case "done":
        let toggled = try await app.todos.toggle(try await todo(argument("ID-PREFIX"))).get()
        print(toggled.completed ? "done" : "not done")
    case "remove":
        try await app.todos.delete(try await todo(argument("ID-PREFIX"))).get()
        print("removed")
    case "pending": for write in await app.queue.pending { print(write.summary) }
    case "sync":
        let sent = await app.queue.replay()
        print("sent \(sent), waiting \(await app.queue.pending.count)")
        for refusal in await app.queue.rejected { print("refused \(refusal.write.summary): \(refusal.error.message)") }
    case "name":
        let profile = try await app.profile.update(.fullName, to: argument("FULL-NAME"), userId: try app.user().id).get()
        print("saved \(profile.fullName ?? "")")
    case "register-device":
        _ = try app.user()
        let hex = argument("HEX")
        try await app.registrar.tokenChanged(hex)
        guard let row = await app.registrar.registered, row.token == hex.lowercased() else {
            fail("the token was not registered yet (the server could not be reached or refused it): the next run tries again")
        }
        print("registered \(row.token.prefix(8))… for \(row.userId.uuidString.lowercased())")
    case "test-push":
        _ = try app.user()
        let link = arguments.isEmpty ? "todoapp:///inbox" : argument("LINK")
        let result = try await PushTestSender(client: app.client).send(PushTestRequest(title: "Hello", body: "From todoapp", deeplink: link)).get()
        print("sent \(result.sent), delivered \(result.delivered), failed \(result.failed)" + (result.message.map { ": \($0)" } ?? ""))
    case "inbox":
        _ = try app.user()
        for entry in try await app.inboxEntries() {
            let screen = entry.route.map { AppRoutes.table.describe($0) } ?? "no screen"
            print("\(entry.isRead ? " " : "*") \(entry.title ?? "") -> \(screen)")
        }
    case "open":
        let link = argument("LINK")
        guard let route = AppRoutes.table.route(for: link) else { fail("no screen for \(link)") }
        print(AppRoutes.table.describe(route))
    default: fail("unknown command \(command)\n\n\(usage)")
    }
}

do { try await run(command) } catch { fail(error.message) }
following.cancel()
