import SoarStore

/// The devices a send reaches, one device per token, read a page at a time with each user's
/// devices in one page: a send to everyone is stored, and delivered, from its first page on,
/// while the rest is read. Lists of users or tokens are read at once, as one page in user order.
struct SendDevices {
    /// The devices counted before reading; rows registered or removed meanwhile change what the
    /// pages hold, so the send's total is settled on what was stored.
    let expected: Int
    private var read: (inout State) throws(StoreError) -> [Device]?
    private var state = State()

    struct State {
        var after: String?
        var done = false
    }

    /// Devices read per page of a send to everyone: one chunk's worth.
    static let pageSize = PushService.chunk

    init(_ audience: SendPushRequest.Audience, rows: DeviceRows) throws(StoreError) {
        switch audience {
        case .everyone:
            expected = try rows.iOSDeviceCount()
            read = { (state: inout State) throws(StoreError) -> [Device]? in
                guard !state.done else { return nil }
                let page = try rows.iOSDevices(after: state.after, size: Self.pageSize)
                state.after = page.last?.userID
                state.done = page.isEmpty
                // One owner per token is the table's rule, so pages never share a token.
                return page.isEmpty ? nil : PushService.onePerToken(page)
            }
        case .users(let ids):
            let devices = Self.inUserOrder(PushService.onePerToken(try rows.iOSDevices("user_id", in: ids)))
            expected = devices.count
            read = Self.once(devices)
        case .tokens(let tokens):
            let registered = try rows.iOSDevices("token", in: tokens)
            let known = Set(registered.map(\.token))
            // A token no row holds is still sent to; it has no row to heal or remove.
            let unknown = Set(tokens).subtracting(known).sorted().map { Device(userID: "", token: $0, environment: nil, bundleID: nil, updatedAt: "") }
            let devices = Self.inUserOrder(PushService.onePerToken(registered + unknown))
            expected = devices.count
            read = Self.once(devices)
        }
    }

    /// The next page; nil after the last.
    mutating func next() throws(StoreError) -> [Device]? { try read(&state) }

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
