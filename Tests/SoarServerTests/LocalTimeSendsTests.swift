import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

@testable import SoarPush

/// `local_time`: a send at 09:00 in each device's own time zone, across 24 zones on an injected
/// clock, each delivered once its hour comes, and the daylight-saving gap.
@Suite(.timeLimit(.minutes(3))) struct LocalTimeSendsTests {
    static let zones = [
        "Pacific/Pago_Pago", "Pacific/Honolulu", "America/Anchorage", "America/Los_Angeles", "America/Denver", "America/Chicago",
        "America/New_York", "America/Halifax", "America/Sao_Paulo", "Atlantic/South_Georgia", "Atlantic/Azores", "Europe/London",
        "Europe/Paris", "Europe/Athens", "Europe/Moscow", "Asia/Dubai", "Asia/Karachi", "Asia/Dhaka", "Asia/Bangkok", "Asia/Shanghai",
        "Asia/Tokyo", "Australia/Brisbane", "Pacific/Noumea", "Pacific/Auckland",
    ]

    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "7a", count: 30) }

    @Test func nineOClockInEachZone() async throws {
        let start = try #require(Timestamp.parse("2026-12-05T00:30:00Z"))
        let time = ManualTime(start)
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        var tokenOfZone: [String: String] = [:]
        for (n, zone) in (Self.zones + ["Not/AZone"]).enumerated() {
            let user = try await fixture.signUp("z\(n)@example.com")
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios","time_zone":"\#(zone)"}"#)
            #expect(answer.status == 201, "\(answer.text)")
            tokenOfZone[zone] = Self.token(n)
        }
        let sent = try await fixture.sendPush(#"{"all":true,"title":"Good morning","body":"It is nine","local_time":"09:00"}"#)
        #expect(sent.status == 202, "\(sent.text)")
        let schedules = sent.object["schedules"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(schedules.count == 25, "24 zones and the fallback for a name that is no zone: \(sent.text)")
        var due: [(at: Date, names: [String])] = []
        for schedule in schedules {
            let zone = try #require(schedule["time_zone"]?.stringValue)
            let names = schedule["time_zones"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let at = try #require(schedule["send_at"]?.stringValue.flatMap(Timestamp.parse))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: zone))
            #expect(calendar.component(.hour, from: at) == 9 && calendar.component(.minute, from: at) == 0, "\(zone): \(at)")
            #expect(at > start && at.timeIntervalSince(start) <= 86_400, "the next nine o'clock: \(zone) \(at)")
            due.append((at, names))
        }
        // Hour by hour, each zone's device gets it once its nine o'clock comes, and not before
        // (zones of one offset, London and the fallback UTC, at the same instant).
        var delivered = 0
        for (at, zones) in Dictionary(grouping: due, by: \.at).sorted(by: { $0.key < $1.key }) {
            let before = Set(emulator.emulator.state.deliveries.map(\.token))
            time.advance(by: at.timeIntervalSince(time.date) + 1)
            delivered += zones.count
            #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == delivered }, "\(zones.map(\.names))")
            #expect(await fixture.outcomesRecorded(), "before the clock moves on")
            let new = Set(emulator.emulator.state.deliveries.map(\.token)).subtracting(before)
            let expected = Set(zones.flatMap(\.names).compactMap { tokenOfZone[$0] })
            #expect(new == expected, "\(zones.map(\.names)) at \(at)")
        }
        #expect(emulator.emulator.state.deliveries.count == 25, "each device once")

        let bad = try await fixture.sendPush(#"{"all":true,"title":"a","body":"b","local_time":"9am"}"#)
        #expect(bad.status == 400 && bad.text.contains("local_time"), "\(bad.text)")
    }

    @Test func aTimeTheClocksSkipIsTheFirstAfterIt() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        // On 2026-03-08 New York's clocks go from 02:00 to 03:00: 02:30 never happens that day.
        let before = try #require(Timestamp.parse("2026-03-08T05:00:00Z"))
        let next = LocalTime.next(hour: 2, minute: 30, in: newYork, after: before)
        #expect(next == Timestamp.parse("2026-03-08T07:00:00Z"), "03:00 EDT, the first time after the gap: \(next)")
    }
}
