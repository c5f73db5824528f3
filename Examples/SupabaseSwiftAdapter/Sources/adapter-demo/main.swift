import Foundation
import SoarClient
import SoarClientTesting  // a device with notifications allowed; the token comes from tokenChanged
import Supabase
import SupabaseSwiftAdapter

// The seed app's pipeline over supabase-swift, against `soar serve --with-emulator`:
//   adapter-demo URL ANON_KEY
// signs up, keeps a todo, registers a device token, sends a test push, reads the inbox with its
// route, then signs out, the device's row deleted as the ending session.
let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[1]) else {
    print("usage: adapter-demo URL ANON_KEY")
    exit(2)
}
let files = FileManager.default.temporaryDirectory.appendingPathComponent("adapter-demo-\(UUID().uuidString)")
let logger: (any SupabaseLogger)? = ProcessInfo.processInfo.environment["ADAPTER_DEBUG"] == nil ? nil : PrintLogger()
let supabase = SupabaseClient(
    supabaseURL: url, supabaseKey: arguments[2],
    options: SupabaseClientOptions(
        auth: .init(storage: SecureStoreStorage(FileSecureStore(directory: files.appendingPathComponent("session"))), emitLocalSessionAsInitialSession: true),
        global: .init(logger: logger)))
let sessions = SupabaseSessions(client: supabase, supabaseURL: url, supabaseKey: arguments[2])

let email = "adapter-\(UUID().uuidString.prefix(8).lowercased())@example.com"
let user = try await supabase.auth.signUp(email: email, password: "correct-horse").user
print("1. signed up \(email) with supabase-swift")

let todos = TodosRepository(remote: SupabaseTodos(client: supabase))
_ = try await todos.add(text: "milk", userId: user.id).get()
print("2. todos: \(try await todos.list(userId: user.id).get().value.map(\.title))")

let registrar = PushTokenRegistrar(
    registry: SupabaseDeviceTokens(client: supabase), auth: sessions, store: FileSecureStore(directory: files.appendingPathComponent("push")),
    environment: "sandbox")
let following = await registrar.start()
let token = String(repeating: "5eed", count: 16)
try await registrar.tokenChanged(token)
print("3. registered: \(await registrar.registered?.token.prefix(8) ?? "nothing")")

let controller = await NotificationsController(
    center: FakeNotificationCenter(status: .authorized), registration: FakeRemoteRegistration(token: nil), routes: .seedApp, registrar: registrar, inboxSync: SupabaseInbox(client: supabase))
_ = await controller.follow(sessions)
let sent = try await SupabasePushTestSender(client: supabase).send(PushTestRequest(title: "Hello", body: "over supabase-swift")).get()
print("4. test push: sent \(sent.sent), delivered \(sent.delivered)")
_ = await controller.syncInbox()
let entry = await controller.inbox.entries.first
print("5. inbox: \(entry?.title ?? "empty") -> \(entry?.route.map { RouteTable.seedApp.describe($0) } ?? "no screen")")

try await sessions.signOut()
let rows: [DeviceToken] = try await supabase.from("device_tokens").select().execute().value
print("6. signed out: \(await registrar.hasPendingWipe ? "the wipe waits" : "the device's row was deleted as the ending session") (\(rows.count) rows visible)")
following.cancel()

// supabase-swift's realtime cannot run here: on Linux its WebSocket is URLSession's, which needs a
// libcurl built with WebSockets, and Debian's is not. SoarClient's realtime (libwslay) is the
// Linux client. The frames supabase-swift sends (vsn 2.0.0, broadcasts in binary frames) are the
// ones Soar's RealtimeTests send and check.

/// supabase-swift's log on standard error, with ADAPTER_DEBUG set.
struct PrintLogger: SupabaseLogger {
    func log(message: SupabaseLogMessage) {
        FileHandle.standardError.write(Data((message.description + "\n").utf8))
    }
}
