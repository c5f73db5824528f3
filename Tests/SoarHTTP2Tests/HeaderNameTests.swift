import Testing

@testable import SoarHTTP2

@Suite(.timeLimit(.minutes(5))) struct HeaderNameTests {
    func bytes(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer(body)
    }

    @Test func namesCompareByTheirBytes() {
        #expect(bytes(":status") { $0.equals(":status") })
        #expect(!bytes(":statu") { $0.equals(":status") })
        #expect(!bytes(":statuses") { $0.equals(":status") })
        #expect(bytes("apns-unique-id") { $0.hasPrefix("apns-") && !$0.equals("apns-id") })
        #expect(!bytes("apns-id") { $0.hasPrefix("apns-") && !$0.equals("apns-id") })
        #expect(!bytes("apn") { $0.hasPrefix("apns-") })
        #expect(bytes("") { $0.equals("") && $0.hasPrefix("") })
    }
}
