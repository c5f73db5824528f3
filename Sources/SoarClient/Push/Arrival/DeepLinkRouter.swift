import Observation
import SoarCore

/// Holds the screen a tap or a link asked for until the UI takes it, once.
@MainActor @Observable
public final class DeepLinkRouter {
    /// The route waiting to be shown.
    public private(set) var pendingRoute: AppRoute?

    public init() {}

    public func open(_ route: AppRoute) {
        pendingRoute = route
    }

    /// Drops the pending route (a tap that opens no particular screen, a sign-out).
    public func clear() {
        pendingRoute = nil
    }

    /// Takes the pending route; a second call returns nil until another arrives.
    public func consumePendingRoute() -> AppRoute? {
        defer { pendingRoute = nil }
        return pendingRoute
    }
}
