import SoarCore
import SoarStore

/// One transaction of a send: an inbox row per user reached and a job per device.
struct SendChunk: Sendable {
    let notifications: [NewNotification]
    let jobs: [NewPushJob]

    init(_ devices: ArraySlice<Device>, _ payload: Payload) {
        var users: [String] = []
        var seen = Set<String>()
        for device in devices where !device.userID.isEmpty && seen.insert(device.userID).inserted { users.append(device.userID) }
        notifications = Inbox.rows(payload, for: users)
        var rowIDs: [String: String] = [:]
        for row in notifications { rowIDs[row.userID] = row.id }
        jobs = devices.map {
            NewPushJob(
                userID: $0.userID.isEmpty ? nil : $0.userID, token: $0.token, environment: $0.environment?.rawValue, bundleID: $0.bundleID,
                apnsID: RandomUUID.lowercase(), notificationID: rowIDs[$0.userID])
        }
    }
}
