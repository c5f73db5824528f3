import Foundation
import Testing

@testable import SoarCore

@Suite(.timeLimit(.minutes(5))) struct PushTokenTests {
    @Test func bytesToLowercaseHexAndBack() throws {
        let bytes = Data((0...255).map { UInt8($0) })
        let token = try PushToken(bytes: bytes)
        #expect(token.hex.count == 512)
        #expect(token.hex.hasPrefix("000102") && token.hex.hasSuffix("fdfeff"))
        #expect(try PushToken(hex: token.hex) == token)
    }

    @Test func acceptsUppercaseAndDescriptionForm() throws {
        #expect(try PushToken(hex: "ABCDEF01").hex == "abcdef01")
        #expect(try PushToken(hex: "<abcd ef01>").hex == "abcdef01")
        #expect(try PushToken(hex: " 0a0b \n").bytes == Data([10, 11]))
    }

    @Test func anyLengthUpTo256BytesIsTaken() throws {
        #expect(try PushToken(hex: "ab").bytes.count == 1)
        #expect(try PushToken(hex: String(repeating: "cd", count: 256)).bytes.count == 256)
        // Both ways in: the full parse, and the fast path for text already in lowercase hex.
        for text in [String(repeating: "CD", count: 257), String(repeating: "cd", count: 50_000)] {
            let error = #expect(throws: PushTokenError.self) { try PushToken.normalizedHex(text) }
            #expect(error?.description.contains("at most 256 bytes") == true)
        }
        #expect(throws: PushTokenError.self) { try PushToken(bytes: Data(count: 257)) }
    }

    @Test(arguments: [
        ("", "a device token must not be empty"),
        ("<>", "a device token must not be empty"),
        ("abc", "a device token has an even number of hex digits, this one has 3"),
        ("zz", "a device token is hex, but \"z\" at position 1 is not a hex digit"),
        ("ab-d", "a device token is hex, but \"-\" at position 3 is not a hex digit"),
    ])
    func rejectsBadText(text: String, message: String) {
        let error = #expect(throws: PushTokenError.self) { try PushToken(hex: text) }
        #expect(error?.description == message)
    }

    @Test func rejectsEmptyBytes() {
        #expect(throws: PushTokenError.self) { try PushToken(bytes: Data()) }
    }

    @Test func codableAsHexString() throws {
        let token = try PushToken(hex: "00ff")
        #expect(String(decoding: try JSONEncoder().encode([token]), as: UTF8.self) == #"["00ff"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([PushToken].self, from: Data(#"["xyz"]"#.utf8)) }
    }
}
