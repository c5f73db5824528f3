import SoarStore

/// The devices a send reaches, one device per token, in chunks of one transaction each with each
/// user's devices in one chunk. A send to everyone is read a page at a time, so it is stored, and
/// delivered, from its first page on while the rest is read; lists of users or tokens are read at
/// once, in user order.
struct SendDevices {
    /// The devices counted before reading; rows registered or removed meanwhile change what the
    /// pages hold, so the send's total is settled on what was stored.
    let expected: Int
    /// Where the next page comes from; nil once there is none (a list is one page).
    private var rows: DeviceRows?
    /// The last user of the pages read so far.
    private var after: String?
    private var page: [Device]
    private var start = 0
    private var chunks = 0

    /// Devices per chunk, after a smaller first one so that delivery starts while the rest is stored.
    static let chunk = 2_000
    static let firstChunk = 1_000

    /// Devices read per page of a send to everyone: one chunk's worth.
    static let pageSize = chunk

    init(_ audience: SendPushRequest.Audience, rows: DeviceRows) throws(StoreError) {
        switch audience {
        case .everyone:
            self.init(expected: try rows.iOSDeviceCount(), pagesFrom: rows, page: [])
        case .topic, .segment:
            // Read a page at a time, as a send to everyone, of the followers' or matching devices only.
            let matching = rows.meeting(Self.condition(audience, tables: rows.store.tables))
            self.init(expected: try matching.iOSDeviceCount(), pagesFrom: matching, page: [])
        case .users(let ids):
            self.init(listed: try rows.iOSDevices("user_id", in: ids))
        case .tokens(let tokens):
            let registered = try rows.iOSDevices("token", in: tokens)
            // A token no row holds is still sent to (it has no row to heal or remove), unless the
            // send is limited (a kind, a zone, quiet hours): no user's choice can be known for it.
            guard rows.only == nil else {
                self.init(listed: registered)
                return
            }
            let known = Set(registered.map(\.token))
            let unknown = Set(tokens).subtracting(known).sorted().map { Device(userID: "", token: $0, environment: nil, bundleID: nil, updatedAt: "") }
            self.init(listed: registered + unknown)
        }
    }

    /// The audience as a condition on `device_tokens` (nil: every device), over the app's `tables`.
    static func condition(_ audience: SendPushRequest.Audience, tables: [String: Table]) -> RowQuery.Condition? {
        switch audience {
        case .everyone: nil
        case .users(let ids): .compare(column: "user_id", op: .in, operand: .list(ids.map(SQLValue.text)))
        case .tokens(let tokens): .compare(column: "token", op: .in, operand: .list(tokens.map(SQLValue.text)))
        case .topic(let topic): PushTopic.followers(of: topic, tables: tables)
        case .segment(_, let condition): condition
        }
    }

    /// How many registered iOS devices the audience holds (tokens no row holds not counted).
    static func count(_ audience: SendPushRequest.Audience, rows: DeviceRows) throws(StoreError) -> Int {
        switch audience {
        case .everyone: try rows.iOSDeviceCount()
        case .topic, .segment: try rows.meeting(condition(audience, tables: rows.store.tables)).iOSDeviceCount()
        case .users(let ids): try rows.iOSDeviceCount("user_id", in: ids)
        case .tokens(let tokens): try rows.iOSDeviceCount("token", in: tokens)
        }
    }

    /// Devices read at once: one per token, in user order.
    init(listed: [Device]) {
        let devices = Self.inUserOrder(Self.onePerToken(listed))
        self.init(expected: devices.count, pagesFrom: nil, page: devices)
    }

    private init(expected: Int, pagesFrom rows: DeviceRows?, page: [Device]) {
        self.expected = expected
        self.rows = rows
        self.page = page
    }

    /// Leaves out what a stopped run stored already: the users up to `lastUser` (their devices
    /// were stored together) and the devices of no user among `userlessTokens`.
    mutating func skipStored(lastUser: String?, userlessTokens: Set<String>) {
        if rows != nil {
            after = lastUser
            (page, start) = ([], 0)
        } else {
            page = page[start...].filter { device in
                device.userID.isEmpty ? !userlessTokens.contains(device.token) : lastUser.map { device.userID > $0 } ?? true
            }
            start = 0
        }
    }

    /// The next chunk, of `atMost` devices when given (a user's devices still go together); nil
    /// after the last.
    mutating func nextChunk(atMost limit: Int? = nil) throws(StoreError) -> ArraySlice<Device>? {
        while start == page.count {
            guard let rows else { return nil }
            let next = try rows.iOSDevices(after: after, size: Self.pageSize)
            if next.isEmpty { self.rows = nil }
            after = next.last?.userID
            // One owner per token is the table's rule, so pages never share a token.
            (page, start) = (Self.onePerToken(next), 0)
        }
        var end = min(start + min(limit ?? .max, chunks == 0 ? Self.firstChunk : Self.chunk), page.count)
        while end < page.count && page[end].userID == page[end - 1].userID && !page[end].userID.isEmpty { end += 1 }
        defer { (start, chunks) = (end, chunks + 1) }
        return page[start..<end]
    }

    /// One device per token: a device that changed hands is registered by both users, and gets
    /// the notification once, as its latest registration's.
    static func onePerToken(_ devices: [Device]) -> [Device] {
        // Nearly always every token differs: a number per token shows it faster than a dictionary
        // of the tokens themselves (distinct numbers, distinct tokens).
        var numbers = Set<UInt64>(minimumCapacity: devices.count)
        if devices.allSatisfy({ numbers.insert(fingerprint($0.token)).inserted }) { return devices }
        var latest: [String: Int] = [:]
        for (index, device) in devices.enumerated() {
            if let seen = latest[device.token], devices[seen].updatedAt > device.updatedAt { continue }
            latest[device.token] = index
        }
        guard latest.count < devices.count else { return devices }
        return latest.values.sorted().map { devices[$0] }
    }

    /// A token's FNV-1a hash.
    private static func fingerprint(_ token: String) -> UInt64 {
        token.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// A user's devices next to each other, users in id order (each user's own order kept): inbox
    /// rows then go into the store's per-user index in key order, not at random places.
    private static func inUserOrder(_ devices: [Device]) -> [Device] {
        if zip(devices, devices.dropFirst()).allSatisfy({ $0.userID <= $1.userID }) { return devices }
        return devices.enumerated().sorted { ($0.element.userID, $0.offset) < ($1.element.userID, $1.offset) }.map(\.element)
    }
}
