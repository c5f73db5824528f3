import SoarStore

/// The devices a send reaches, one device per token, in chunks of one transaction each with each
/// user's devices in one chunk. A send to everyone is read a page at a time, so it is stored, and
/// delivered, from its first page on while the rest is read; lists of users or tokens are read at
/// once, in user order.
struct SendDevices {
    /// The devices counted before reading; rows registered or removed meanwhile change what the
    /// pages hold, so the send's total is settled on what was stored.
    let expected: Int
    private var read: (inout State) throws(StoreError) -> [Device]?
    private var state = State()
    private var page: [Device] = []
    private var start = 0
    private var chunks = 0

    struct State {
        var after: String?
        var done = false
    }

    /// Devices per chunk, after a smaller first one so that delivery starts while the rest is stored.
    static let chunk = 2_000
    static let firstChunk = 1_000

    /// Devices read per page of a send to everyone: one chunk's worth.
    static let pageSize = chunk

    init(_ audience: SendPushRequest.Audience, rows: DeviceRows) throws(StoreError) {
        switch audience {
        case .everyone:
            try self.init(everyone: rows)
        case .users(let ids):
            self.init(listed: try rows.iOSDevices("user_id", in: ids))
        case .tokens(let tokens):
            let registered = try rows.iOSDevices("token", in: tokens)
            let known = Set(registered.map(\.token))
            // A token no row holds is still sent to; it has no row to heal or remove.
            let unknown = Set(tokens).subtracting(known).sorted().map { Device(userID: "", token: $0, environment: nil, bundleID: nil, updatedAt: "") }
            self.init(listed: registered + unknown)
        }
    }

    /// Every iOS device, a page at a time.
    private init(everyone rows: DeviceRows) throws(StoreError) {
        expected = try rows.iOSDeviceCount()
        read = { (state: inout State) throws(StoreError) -> [Device]? in
            guard !state.done else { return nil }
            let page = try rows.iOSDevices(after: state.after, size: Self.pageSize)
            state.after = page.last?.userID
            state.done = page.isEmpty
            // One owner per token is the table's rule, so pages never share a token.
            return page.isEmpty ? nil : PushService.onePerToken(page)
        }
    }

    /// Devices read at once: one per token, in user order.
    init(listed: [Device]) {
        let devices = Self.inUserOrder(PushService.onePerToken(listed))
        expected = devices.count
        read = Self.once(devices)
    }

    /// The next chunk; nil after the last.
    mutating func nextChunk() throws(StoreError) -> ArraySlice<Device>? {
        while start == page.count {
            guard let next = try read(&state) else { return nil }
            (page, start) = (next, 0)
        }
        var end = min(start + (chunks == 0 ? Self.firstChunk : Self.chunk), page.count)
        while end < page.count && page[end].userID == page[end - 1].userID && !page[end].userID.isEmpty { end += 1 }
        defer { (start, chunks) = (end, chunks + 1) }
        return page[start..<end]
    }

    private static func once(_ devices: [Device]) -> (inout State) throws(StoreError) -> [Device]? {
        { (state: inout State) throws(StoreError) -> [Device]? in
            defer { state.done = true }
            return state.done || devices.isEmpty ? nil : devices
        }
    }

    /// A user's devices next to each other, users in id order (each user's own order kept): inbox
    /// rows then go into the store's per-user index in key order, not at random places.
    private static func inUserOrder(_ devices: [Device]) -> [Device] {
        if zip(devices, devices.dropFirst()).allSatisfy({ $0.userID <= $1.userID }) { return devices }
        return devices.enumerated().sorted { ($0.element.userID, $0.offset) < ($1.element.userID, $1.offset) }.map(\.element)
    }
}
