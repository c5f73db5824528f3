import SoarCore
import SoarStore

/// One transaction of a send: an inbox row per user reached and a job per device, each device
/// with the locale variant its locale matches and each user's row in their first device's.
struct SendChunk: Sendable {
    let notifications: [NewNotification]
    let jobs: [NewPushJob]

    init(_ devices: ArraySlice<Device>, _ request: SendPushRequest) {
        let variants = Set(request.localizedAlerts.keys)
        var users: [String?: [String]] = [:]
        var userVariant: [String: String?] = [:]
        for device in devices where !device.userID.isEmpty && userVariant[device.userID] == nil {
            let variant = LocaleMatch.variant(for: device.locale, among: variants)
            userVariant[device.userID] = variant
            users[variant, default: []].append(device.userID)
        }
        notifications = users.flatMap { variant, ids in Inbox.rows(request.payload(variant: variant), for: ids) }
        var rowIDs: [String: String] = [:]
        for row in notifications { rowIDs[row.userID] = row.id }
        jobs = devices.map {
            NewPushJob(
                userID: $0.userID.isEmpty ? nil : $0.userID, token: $0.token, environment: $0.environment?.rawValue, bundleID: $0.bundleID,
                apnsID: RandomUUID.lowercase(), notificationID: rowIDs[$0.userID],
                variant: variants.isEmpty ? nil : LocaleMatch.variant(for: $0.locale, among: variants))
        }
    }
}
