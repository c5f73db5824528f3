import SoarCore

/// A picture with a notification: `image_url` in the payload, which the app's Notification Service
/// Extension downloads and attaches (SoarClient's `NotificationEnricher`), and `mutable-content`,
/// without which iOS never runs the extension.
enum PushImage {
    /// An `https` or `http` URL, checked.
    static func url(_ text: String?) throws(PushError) -> String? {
        guard let text else { return nil }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://"), text.count <= 2048, !text.contains(where: \.isWhitespace) else {
            throw .invalid("image_url must be an http(s) URL (or give image: a storage path, bucket/name)")
        }
        return text
    }

    static func attach(_ url: String, to payload: inout Payload) {
        payload.custom["image_url"] = .string(url)
        payload.aps.mutableContent = true
    }
}
