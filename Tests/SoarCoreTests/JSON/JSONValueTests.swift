import Foundation
import Testing

@testable import SoarCore

@Suite(.timeLimit(.minutes(5))) struct JSONValueTests {
    @Test func keepsIntegersAndFractionsApart() throws {
        let text = #"{"a":1,"b":1.5,"c":true,"d":null,"e":["x",2],"f":{"g":"h"}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value.objectValue?["a"] == .int(1))
        #expect(value.objectValue?["b"] == .double(1.5))
        #expect(value.objectValue?["c"] == .bool(true))
        #expect(value.objectValue?["d"] == .null)
        #expect(String(decoding: try JSONCoding.encode(value), as: UTF8.self) == text)
    }

    @Test func readingThenWritingKeepsNumbersAsWritten() throws {
        let text = #"{"big":12345678901234567890,"e":2.5e-3,"i":-7,"one":1.0,"z":-0}"#
        let value = try JSONValue.read(text)
        #expect(value.objectValue?["i"] == .int(-7))
        #expect(value.objectValue?["one"] == .number("1.0"))
        #expect(value.jsonText == text)
        #expect(value.objectValue?["one"]?.intValue == 1 && value.objectValue?["e"]?.doubleValue == 0.0025)
        let payload = try Payload(json: Data(#"{"aps":{"badge":3},"n":12345678901234567890,"f":1.0}"#.utf8))
        #expect(String(decoding: payload.encoded(), as: UTF8.self) == #"{"aps":{"badge":3},"f":1.0,"n":12345678901234567890}"#)
    }

    @Test func readsEscapesUnicodeAndAByteOrderMark() throws {
        let value = try JSONValue.read(Data([0xEF, 0xBB, 0xBF] + Array(#" ["a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "ü"] "#.utf8)))
        #expect(value == ["a\"\\/\u{8}\u{c}\n\r\té😀", "ü"])
        #expect(JSONValue.string("a\"\\/\u{1}\n").jsonText == #""a\"\\/\u0001\n""#)
        // Escapes first and last, runs of plain bytes (multi-byte ones too) between them, and none.
        #expect(JSONValue.string("\tΩ 𝄞\r\u{1F}").jsonText == #""\tΩ 𝄞\r\u001f""#)
        #expect(JSONValue.string("").jsonText == #""""#)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "1e", "\"\\x\"", "\"\u{1}\"", "\"\\ud800\"", "nul", "[1] 2", "{\"a\":1,}"])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONReadError.self) { try JSONValue.read(text) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONReadError.self) { try JSONValue.read(Data([0x22, 0xC3, 0x28, 0x22])) }
        #expect(throws: JSONReadError.self) { try JSONValue.read(String(repeating: "[", count: 600) + String(repeating: "]", count: 600)) }
        #expect((try? JSONValue.read(String(repeating: "[", count: 500) + String(repeating: "]", count: 500))) != nil)
    }

    @Test func bridgesUserInfo() {
        let info: [AnyHashable: Any] = ["aps": ["badge": 2], "target_url": "/campaigns", "n": 1.5]
        #expect(JSONValue(any: info) == ["aps": ["badge": 2], "target_url": "/campaigns", "n": 1.5])
        #expect(JSONValue(any: Date()) == nil)
    }
}

@Suite(.timeLimit(.minutes(5))) struct TimestampTests {
    @Test(arguments: [
        ("2024-05-01T12:30:00Z", 1_714_566_600.0),
        ("2024-05-01T12:30:00.250Z", 1_714_566_600.25),
        ("2024-05-01T12:30:00.123456+00:00", 1_714_566_600.123456),
        ("2024-05-01 12:30:00+00", 1_714_566_600.0),
        ("2024-05-01T14:30:00+02:00", 1_714_566_600.0),
        ("2024-05-01T18:00:00+0530", 1_714_566_600.0),
        ("2024-05-01T12:30:00", 1_714_566_600.0),
        ("2024-05-01 14:30+02", 1_714_566_600.0),
        ("2024-05-01T12:30", 1_714_566_600.0),
        ("2024-05-01", 1_714_521_600.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1500-01-01T00:00:00Z", -14_831_769_600.0),
        ("0001-01-01T00:00:00Z", -62_135_596_800.0),
    ])
    func parsesPostgresAndISOForms(text: String, seconds: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_01)
    }

    @Test(arguments: [
        "", "yesterday", "2024-13-01T00:00:00Z", "2024-05-01T12:3", "2024-05-01T12:30:", "2024-05-01T12:30:00.Z", "2024-05-01T12:30:00Zjunk",
        "2021-02-30T00:00:00Z", "2021-04-31T00:00:00Z", "2023-02-29", "0000-01-01T00:00:00Z", "2024-05-01T12:30:00+25:00",
        "9999-12-31T23:59:59.9999999Z",
    ])
    func rejectsMalformed(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// Every accepted date is written back as it was read, at the ends of the range too.
    @Test(arguments: ["1500-01-01T00:00:00.000000+00:00", "0001-01-01T00:00:00.000000+00:00", "9999-12-31T23:59:59.000000+00:00", "2000-02-29T12:00:00.500000+00:00"])
    func roundTrips(text: String) throws {
        #expect(Timestamp.postgres(try #require(Timestamp.parse(text))) == text)
    }

    @Test func formatsWithMilliseconds() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_714_566_600.25)) == "2024-05-01T12:30:00.250Z")
    }
}
