import Foundation
import SoarCore

/// `soar self-check`: proves the build works end to end on this machine.
struct SelfCheckCommand: Command {
    static let name = "self-check"
    static let summary = "Check this build: payload encoding, token hex and routing, with a line per check."

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("self-check takes no arguments") }
    }

    func run(_ console: Console) async throws(CommandError) {
        var failed: [String] = []
        func check(_ name: String, _ ok: Bool) {
            console.print("\(ok ? "ok  " : "FAIL") \(name)")
            if !ok { failed.append(name) }
        }
        let payload = Payload.alert(title: "Test", body: "Test notification", custom: ["target_url": "/brands/123/hub"])
        let decoded = try? Payload(json: payload.encoded())
        check("payload round trip (\(payload.size) bytes)", decoded == payload)
        let token = try? PushToken(hex: "00ff10ab")
        check("device token hex", token?.hex == "00ff10ab" && token?.bytes == Data([0, 255, 16, 171]))
        check("route /brands/123/hub", PushRoute.from(payload) == .brandHub(publicId: "123", tab: .overview))
        check("route soar:///notifications", PushRoute.parse("soar:///notifications") == .notifications)
        guard failed.isEmpty else { throw .failure("\(failed.count) check(s) failed") }
        console.print("soar \(SoarCLI.version) is ready.")
    }
}
