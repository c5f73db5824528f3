import Foundation
import SoarCore
import Testing

/// UUIDs as text: written lowercase, read back in either case, anything else refused.
@Suite(.timeLimit(.minutes(5))) struct UUIDTextTests {
    @Test func textReadsBackToTheSameUUIDInEitherCase() {
        for _ in 0..<100 {
            let uuid = RandomUUID.make()
            #expect(RandomUUID.parse(RandomUUID.text(uuid)) == uuid)
            #expect(RandomUUID.parse(uuid.uuidString) == uuid)
        }
    }

    @Test(arguments: [
        "", "not a uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c330", "3f2504e0-4f89-11d3-9a0c-0305e82c33011",
        "3f2504e04f89-11d3-9a0c-0305e82c3301-", "3f2504e0-4f89-11d3-9a0c-0305e82c330g", "3f2504e0_4f89_11d3_9a0c_0305e82c3301",
        "3f2504e0-4f89-11d3-9a0c-0305e82c330é",
        // Foundation's sscanf takes these; a UUID's text has none of them.
        "+f2504e0-4f89-11d3-9a0c-0305e82c3301", "3f2504 e-4f89-11d3-9a0c-0305e82c3301", "0x2504e0-4f89-11d3-9a0c-0305e82c3301",
    ])
    func anythingElseIsRefused(_ text: String) {
        #expect(RandomUUID.parse(text) == nil)
    }
}
