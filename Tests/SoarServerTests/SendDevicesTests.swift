import Foundation
import SoarCore
import SoarStore
import SoarTesting
import Testing

@testable import SoarPush

/// A send to everyone reads devices a page at a time, and a user's devices never straddle two pages.
@Suite(.timeLimit(.minutes(5))) struct SendDevicesTests {
    let directory = TemporaryDirectory("soar-send-devices")

    func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// Users `a`, `b`, `c` (ids sorting in that order) with 3, 1 and 2 iOS devices, and one Android device.
    func store() throws -> (SQLiteStore, [String]) {
        let store = try SQLiteStore(path: directory.path + "/devices.db")
        let users = (1...3).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        for user in users { try store.createUser(AuthUser(id: user, createdAt: Timestamp.postgres(Date()))) }
        let devices = [(0, 1, "ios"), (0, 2, "ios"), (0, 3, "ios"), (1, 4, "ios"), (2, 5, "ios"), (2, 6, "ios"), (2, 7, "android")]
        _ = try store.insert(
            StarterTables.deviceTokens, devices.map { ["user_id": .text(users[$0.0]), "token": .text(token($0.1)), "platform": .text($0.2)] },
            onConflict: nil, as: .service)
        return (store, users)
    }

    @Test func pagesHoldWholeUsersAndEveryDeviceOnce() throws {
        let (store, users) = try store()
        let rows = DeviceRows(store: store)
        var pages: [[Device]] = []
        var after: String?
        while true {
            let page = try rows.iOSDevices(after: after, size: 2)
            if page.isEmpty { break }
            pages.append(page)
            after = page.last?.userID
        }
        // a's three devices overflow a page of two and come whole; b's one device is cut short of c.
        #expect(pages.map { $0.map(\.token) } == [[token(1), token(2), token(3)], [token(4)], [token(5), token(6)]])
        #expect(pages.map { Set($0.map(\.userID)).count } == [1, 1, 1] && pages[0][0].userID == users[0])
        #expect(try rows.iOSDeviceCount() == 6)
    }

    func chunkSizes(_ devices: SendDevices) -> [Int] {
        var devices = devices
        var sizes: [Int] = []
        while let chunk = try? devices.nextChunk() { sizes.append(chunk.count) }
        return sizes
    }

    @Test func chunksKeepEachUsersDevicesTogether() {
        // 1,500 users with two devices each: the first chunk goes past 1,000 only to end a user.
        let devices = (0..<3_000).map { Device(userID: String(format: "u%05d", $0 / 2), token: token($0), environment: nil, bundleID: nil, updatedAt: "") }
        #expect(chunkSizes(SendDevices(listed: devices)) == [1_000, 2_000])
        // The first user has one device: the first chunk would end inside user 500's two.
        #expect(chunkSizes(SendDevices(listed: Array(devices.dropFirst()))) == [1_001, 1_998])
    }

    @Test func aSendToEveryoneIsReadInPagesAndListsAtOnce() throws {
        let (store, users) = try store()
        var everyone = try SendDevices(.everyone, rows: DeviceRows(store: store))
        #expect(everyone.expected == 6)
        var read: [String] = []
        while let chunk = try everyone.nextChunk() { read += chunk.map(\.token) }
        #expect(read == (1...6).map(token))
        var listed = try SendDevices(.users([users[2], users[0]]), rows: DeviceRows(store: store))
        #expect(listed.expected == 5)
        #expect(try listed.nextChunk().map { Array($0.map(\.userID)) } == [users[0], users[0], users[0], users[2], users[2]], "in user order")
        #expect(try listed.nextChunk() == nil)
    }
}
