import Foundation
import Testing

@testable import SoarPush

/// A send reaches each token once: a device that changed hands goes out as its latest registration's.
@Suite(.timeLimit(.minutes(5))) struct OnePerTokenTests {
    func device(_ user: String, _ token: String, _ updatedAt: String) -> Device {
        Device(userID: user, token: token, environment: nil, bundleID: nil, updatedAt: updatedAt)
    }

    @Test func distinctTokensAreKeptAsTheyCame() {
        let devices = (0..<1000).map { device("u\($0)", String(format: "%064x", $0), "2026-01-01") }
        #expect(SendDevices.onePerToken(devices) == devices)
    }

    @Test func aRepeatedTokenGoesOutOnceAsItsLatestRegistration() {
        let old = device("alice", "aa11", "2026-01-01")
        let other = device("alice", "bb22", "2026-01-01")
        let new = device("bob", "aa11", "2026-02-01")
        #expect(SendDevices.onePerToken([old, other, new]) == [other, new])
        #expect(SendDevices.onePerToken([new, other, old]) == [new, other])
    }
}
