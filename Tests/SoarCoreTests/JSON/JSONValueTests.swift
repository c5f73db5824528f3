import Foundation
import Testing

@testable import SoarCore

@Suite struct JSONValueTests {
    @Test func keepsIntegersAndFractionsApart() throws {
        let text = #"{"a":1,"b":1.5,"c":true,"d":null,"e":["x",2],"f":{"g":"h"}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value.objectValue?["a"] == .int(1))
        #expect(value.objectValue?["b"] == .double(1.5))
        #expect(value.objectValue?["c"] == .bool(true))
        #expect(value.objectValue?["d"] == .null)
        #expect(String(decoding: try JSONCoding.encode(value), as: UTF8.self) == text)
    }

    @Test func bridgesUserInfo() {
        let info: [AnyHashable: Any] = ["aps": ["badge": 2], "target_url": "/campaigns", "n": 1.5]
        #expect(JSONValue(any: info) == ["aps": ["badge": 2], "target_url": "/campaigns", "n": 1.5])
        #expect(JSONValue(any: Date()) == nil)
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2024-05-01T12:30:00Z", 1_714_566_600.0),
        ("2024-05-01T12:30:00.250Z", 1_714_566_600.25),
        ("2024-05-01T12:30:00.123456+00:00", 1_714_566_600.123456),
        ("2024-05-01 12:30:00+00", 1_714_566_600.0),
        ("2024-05-01T14:30:00+02:00", 1_714_566_600.0),
        ("2024-05-01T18:00:00+0530", 1_714_566_600.0),
        ("2024-05-01T12:30:00", 1_714_566_600.0),
    ])
    func parsesPostgresAndISOForms(text: String, seconds: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_01)
    }

    @Test(arguments: ["", "yesterday", "2024-13-01T00:00:00Z", "2024-05-01T12:30", "2024-05-01T12:30:00.Z", "2024-05-01T12:30:00Zjunk"])
    func rejectsMalformed(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func formatsWithMilliseconds() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_714_566_600.25)) == "2024-05-01T12:30:00.250Z")
    }
}
