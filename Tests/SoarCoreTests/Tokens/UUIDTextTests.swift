import Foundation
import SoarCore
import Testing

/// UUIDs as text: written lowercase, read back in either case, anything else refused.
@Suite struct UUIDTextTests {
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
    ])
    func anythingElseIsRefused(_ text: String) {
        #expect(RandomUUID.parse(text) == nil)
        #expect(UUID(uuidString: text) == nil, "Foundation agrees")
    }
}
