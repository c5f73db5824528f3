import SoarCore
import Testing

@Suite(.timeLimit(.minutes(1))) struct TrimmingTests {
    @Test func spacesAndTabsGoFromBothEndsOnly() {
        #expect(" \t Bearer a b \t ".trimmingSpaces == "Bearer a b")
        #expect("x".trimmingSpaces == "x")
        #expect(" \t ".trimmingSpaces == "")
        #expect("".trimmingSpaces == "")
        #expect("\nx\n".trimmingSpaces == "\nx\n", "only spaces and tabs, as in a header value")
    }

    @Test func aSubstringAndLongOrNonASCIITextAreTrimmedAlike() {
        let token = String(repeating: "eyJhbGciOi.", count: 60)
        let header = "Bearer   \(token)  "
        #expect(header.dropFirst(6).trimmingSpaces == token)
        #expect("  zoë ✓ ".trimmingSpaces == "zoë ✓")
        #expect("  zoë ✓ "[...].trimmingSpaces == "zoë ✓")
    }
}
