import SoarCore
import SoarStore

/// One transaction of a send: an inbox row per user reached and a job per device, each device
/// with the locale variant its locale matches and each user's row in their first device's.
struct SendChunk: Sendable {
    let notifications: [NewNotification]
    let jobs: [NewPushJob]

    init(_ devices: ArraySlice<Device>, _ request: SendPushRequest) {
        // Matched once a device, and only when the send has variants (most have none).
        let variants = Set(request.localizedAlerts.keys)
        let matched: [String?] = variants.isEmpty ? [] : devices.map { LocaleMatch.variant(for: $0.locale, among: variants) }
        func variant(_ index: Int) -> String? { matched.isEmpty ? nil : matched[index - devices.startIndex] }
        var users: [String?: [String]] = [:]
        var seen = Set<String>()
        for index in devices.indices where !devices[index].userID.isEmpty && seen.insert(devices[index].userID).inserted {
            users[variant(index), default: []].append(devices[index].userID)
        }
        notifications = users.flatMap { variant, ids in Inbox.rows(request.payload(variant: variant), for: ids) }
        var rowIDs: [String: String] = [:]
        for row in notifications { rowIDs[row.userID] = row.id }
        jobs = devices.indices.map { index in
            let device = devices[index]
            return NewPushJob(
                userID: device.userID.isEmpty ? nil : device.userID, token: device.token, environment: device.environment?.rawValue, bundleID: device.bundleID,
                apnsID: RandomUUID.lowercase(), notificationID: rowIDs[device.userID], variant: variant(index))
        }
    }
}
