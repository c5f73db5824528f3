import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `send-push` to a segment written in the data API's filter syntax on `device_tokens`, its dry
/// run, and its mistakes answered as the data API answers them.
@Suite(.timeLimit(.minutes(3))) struct PushSegmentsTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "bb", count: 30) }

    @Test func aSegmentReachesTheDevicesItMatches() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try ServerFixture(push: try emulator.pushSettings())
        let devices = [("2.1.0", "fr_FR", "Europe/Paris"), ("1.9.3", "fr_CA", "America/Toronto"), ("2.4.0", "de_DE", "Europe/Berlin")]
        for (n, device) in devices.enumerated() {
            let user = try await fixture.signUp("s\(n)@example.com")
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens", bearer: user.token,
                body: #"{"token":"\#(Self.token(n))","platform":"ios","app_version":"\#(device.0)","locale":"\#(device.1)","time_zone":"\#(device.2)"}"#)
            #expect(answer.status == 201, "\(answer.text)")
        }
        func send(_ body: String) async throws -> ServerFixture.Answer {
            try await fixture.sendPush(body)
        }
        let french = #"locale=like.fr*&app_version=gte.2.0"#
        let dry = try await send(#"{"segment":"\#(french)","title":"Bonjour","body":"Nouveau","dry_run":true}"#)
        #expect(dry.status == 200 && dry.object["devices"] == 1 && dry.object["dry_run"] == true, "\(dry.text)")
        #expect(emulator.emulator.state.deliveries.isEmpty, "a dry run sends nothing")
        let either = try await send(#"{"segment":"or=(locale.like.de*,time_zone.eq.America/Toronto)","title":"a","body":"b","dry_run":true}"#)
        #expect(either.object["devices"] == 2, "\(either.text)")

        let sent = try await send(#"{"segment":"\#(french)","title":"Bonjour","body":"Nouveau"}"#)
        #expect(sent.status == 202 && sent.object["devices"] == 1, "\(sent.text)")
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 1 })
        #expect(emulator.emulator.state.deliveries.map(\.token) == [Self.token(0)])

        let unknown = try await send(#"{"segment":"shoe_size=eq.42","title":"a","body":"b","dry_run":true}"#)
        #expect(unknown.status == 400 && unknown.text.contains("shoe_size"), "\(unknown.text)")
        let garbled = try await send(#"{"segment":"locale=nope.fr","title":"a","body":"b"}"#)
        #expect(garbled.status == 400 && garbled.text.contains("segment"), "\(garbled.text)")
        let ordered = try await send(#"{"segment":"order=locale","title":"a","body":"b"}"#)
        #expect(ordered.status == 400 && ordered.text.contains("only filters"), "\(ordered.text)")
    }
}
